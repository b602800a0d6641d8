package shell

// BuildCommand reports whether argv is a build or test command the judge
// knows: go build/test/vet, cargo build/check/test/clippy, npm/pnpm/yarn/bun
// test or run <script>, make with targets, pytest. They run the
// repository's own code, so they are never read-only; confined by the
// kernel's sandbox (writes in the workspace, no network but the proxy) a
// trusted workspace may run them without asking.
func BuildCommand(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	sub := ""
	if len(argv) > 1 {
		sub = argv[1]
	}
	switch argv[0] {
	case "go":
		return sub == "build" || sub == "test" || sub == "vet"
	case "cargo":
		return sub == "build" || sub == "check" || sub == "test" || sub == "clippy"
	case "npm", "pnpm", "yarn", "bun":
		return sub == "test" || sub == "t" || (sub == "run" || sub == "run-script") && len(argv) > 2
	case "make":
		return true
	case "pytest":
		return true
	case "python", "python3":
		return len(argv) > 2 && argv[1] == "-m" && argv[2] == "pytest"
	}
	return false
}
