// Written by scripts/package-version.mjs from package.json's `version` (the first step of
// `npm run build`), so that the version is known without reading package.json at run time: an app
// may bundle the package root, and then no package.json lies beside the code (test/pack.test.ts
// checks the two agree).
export const packageVersion = '0.1.0'
