// oidc-provider ships no type declarations; the test helper uses it through this loose one.
declare module 'oidc-provider' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const Provider: any
  export default Provider
}
