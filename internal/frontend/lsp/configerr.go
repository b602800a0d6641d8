package lsp

import "fmt"

// configProblem says why the user's config file did not load, naming it,
// or "" when it loaded: every setting in it is missing then, so an ask
// that fails for lack of a model or provider must say the file is why.
func (s *Server) configProblem() string {
	_, _, err := s.opts.App.UserConfig()
	if err == nil {
		return ""
	}
	return fmt.Sprintf("your config file %s did not load, so none of its settings apply: %v. Fix the file and save it: the next prompt reads it again",
		s.opts.App.Options().ConfigPath, err)
}

// reportConfigProblem shows the config file's error once the client is
// initialized.
func (s *Server) reportConfigProblem() {
	if p := s.configProblem(); p != "" {
		s.log.Error("config file ignored", "problem", p)
		s.showMessage(s.base, 1, "agentls: "+p)
	}
}
