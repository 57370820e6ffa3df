/** Source of new ids (UUID v4 in production). */
export type IdGenerator = () => string;
