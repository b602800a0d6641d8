package lsp

import (
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/langserver/overlay"
)

func (s *Server) didOpen(params json.RawMessage) error {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	uri := string(p.TextDocument.URI)
	if err := s.docs.Open(uri, string(p.TextDocument.LanguageID), p.TextDocument.Version, p.TextDocument.Text); err != nil {
		return err
	}
	s.touchLSP(uri, false)
	return nil
}

func (s *Server) didChange(params json.RawMessage) error {
	var p didChangeParams
	if err := decode(params, &p); err != nil {
		return err
	}
	changes := make([]overlay.Change, len(p.ContentChanges))
	for i, c := range p.ContentChanges {
		changes[i].Text = c.Text
		if c.Range != nil {
			changes[i].Range = &overlay.Range{
				Start: overlay.Position{Line: c.Range.Start.Line, Character: c.Range.Start.Character},
				End:   overlay.Position{Line: c.Range.End.Line, Character: c.Range.End.Character},
			}
		}
	}
	uri := string(p.TextDocument.URI)
	// The text before, for the next-edit suggestions' recent edits,
	// when they are offered (a completion model).
	before, _, track := s.docs.GetURI(uri)
	track = track && s.inline.isDeclared()
	warn, err := s.docs.Change(uri, p.TextDocument.Version, changes)
	if warn != "" {
		s.log.Warn(warn)
	}
	if err == nil {
		now, _, _ := s.docs.GetURI(uri)
		s.personChanged(uri, &now)
		s.touchLSP(uri, false)
		if path, perr := overlay.URIToPath(uri); perr == nil && track {
			s.next.record(path, before, now)
		}
	}
	return err
}

func (s *Server) didClose(params json.RawMessage) error {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	uri := string(p.TextDocument.URI)
	if err := s.docs.Close(uri); err != nil {
		return err
	}
	if path, err := overlay.URIToPath(uri); err == nil {
		s.next.forget(path)
		s.forgetSymbols(path)
	}
	s.touchLSP(uri, true)
	return nil
}

// touchLSP tells the language servers of the lsp_* tools that the editor
// opened, changed or closed a document: the servers for its type start
// (in the background) and follow the buffer, so they see what the person
// sees.
func (s *Server) touchLSP(uri string, closed bool) {
	path, err := overlay.URIToPath(uri)
	if err != nil {
		return
	}
	if closed {
		s.lsp.Closed(path)
		return
	}
	s.lsp.Touch(path)
}

func (s *Server) didChangeFolders(params json.RawMessage) error {
	var p protocol.DidChangeWorkspaceFoldersParams
	if err := decode(params, &p); err != nil {
		return err
	}
	removed := map[string]bool{}
	for _, f := range p.Event.Removed {
		if path, err := overlay.URIToPath(f.URI); err == nil {
			removed[path] = true
		}
	}
	var roots []string
	for _, r := range s.ws.Roots() {
		if !removed[r] {
			roots = append(roots, r)
		}
	}
	for _, f := range p.Event.Added {
		path, err := overlay.URIToPath(f.URI)
		if err != nil {
			return fmt.Errorf("added folder: %w", err)
		}
		roots = append(roots, path)
	}
	return s.ws.SetRoots(roots)
}

// didSave tells the checkpoints of a save the person made.
func (s *Server) didSave(params json.RawMessage) error {
	var p protocol.DidSaveTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.personChanged(string(p.TextDocument.URI), nil)
	return nil
}

// personChanged tells the checkpoints that the person changed the document
// uri in the editor — unless the change is the agent's own edit being
// applied through the editor (editorApplier), or the didChange that brings
// the text that edit left, however late it comes — so a step running now
// does not take the person's work as its change. text is the document's
// text after a didChange (nil for a save).
func (s *Server) personChanged(uri string, text *string) {
	path, err := overlay.URIToPath(uri)
	if err != nil || s.env == nil {
		return
	}
	s.mu.Lock()
	agent := s.agentEdits[path] > 0
	if want, ok := s.agentTexts[path]; ok && text != nil && *text == want {
		agent = true
		delete(s.agentTexts, path)
	}
	s.mu.Unlock()
	if !agent {
		s.env.PersonChanged(path)
	}
}

// expectAgentText records the buffer text the agent's edit of path will
// leave (its didChange is the agent's, even after the applyEdit's
// answer); "" with ok false forgets it (the edit was not applied).
func (s *Server) expectAgentText(path, text string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		delete(s.agentTexts, path)
		return
	}
	if s.agentTexts == nil {
		s.agentTexts = map[string]string{}
	}
	s.agentTexts[path] = text
}

// agentEditing marks the agent's edit of path being applied through the
// editor until the returned function is called.
func (s *Server) agentEditing(path string) func() {
	s.mu.Lock()
	if s.agentEdits == nil {
		s.agentEdits = map[string]int{}
	}
	s.agentEdits[path]++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.agentEdits[path]--; s.agentEdits[path] <= 0 {
			delete(s.agentEdits, path)
		}
		s.mu.Unlock()
	}
}
