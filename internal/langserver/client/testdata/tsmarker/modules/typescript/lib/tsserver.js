// A project's own "TypeScript" for the trust tests (it belongs in the
// project's node_modules/typescript/lib): it records that it ran in
// tsserver-ran at the project root, then hands over to the global
// TypeScript so that the project still works.
const path = require("path");
require("fs").appendFileSync(path.join(__dirname, "..", "..", "..", "tsserver-ran"), process.pid + "\n");
const global = require("child_process").execFileSync("npm", ["root", "-g"], { cwd: require("os").tmpdir() }).toString().trim();
require(path.join(global, "typescript", "lib", "tsserver.js"));
