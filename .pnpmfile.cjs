// pnpm hooks. beforePacking: the pi package's packed manifest drops its devDependencies, which name
// Condense's private workspace packages (bundled into dist/ by its prepack): npm resolves devDependencies
// even with --omit=dev, so a git-style `pi install` (clone + npm install) would fail on them.
module.exports = {
  hooks: {
    beforePacking(pkg) {
      if (pkg.name === "@condense/pi-extension") {
        delete pkg.devDependencies;
        delete pkg.scripts;
      }
      return pkg;
    },
  },
};
