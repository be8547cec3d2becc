// Types for `import topology from './bundle.lock.json?topology'` (TypeScript does not resolve a
// specifier with a query): add `/// <reference types="unplugin-contracts/topology-import" />` to a
// declaration file of the app, or "unplugin-contracts/topology-import" to `compilerOptions.types`.
// A declaration file without imports or exports, so the wildcard module declaration is global.
declare module '*bundle.lock.json?topology' {
  const topology: import('unplugin-contracts').Topology
  export default topology
}
