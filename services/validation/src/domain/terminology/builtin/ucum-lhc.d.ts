// @lhncbc/ucum-lhc ships no type declarations; ucum.ts describes the one function it uses.
declare module '@lhncbc/ucum-lhc' {
  const ucumPackage: unknown;
  export default ucumPackage;
}
