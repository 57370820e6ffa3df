/**
 * The part of node-postgres (`pg`, installed as MikroORM's driver) that the bare handler of the
 * tenant benchmark uses. The package ships no types and the project has no other direct use of it,
 * so a few lines here instead of a @types dependency.
 */
declare module 'pg' {
  interface PoolConfig {
    host?: string;
    port?: number;
    user?: string;
    password?: string;
    database?: string;
    max?: number;
  }
  interface Pool {
    query<Row>(text: string, values?: readonly unknown[]): Promise<{ rows: Row[] }>;
    end(): Promise<void>;
  }
  const pg: { Pool: new (config: PoolConfig) => Pool };
  export default pg;
}
