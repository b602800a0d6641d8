package lsp

import (
	"context"

	"github.com/agentls/agentls/internal/tools"
)

// WaitDocument implements tools.OverlayWaiter: it wakes on the editor's
// didOpen, didChange and didClose, so diagnostics after an edit applied
// to a buffer wait for the editor's didChange instead of polling.
func (o docOverlay) WaitDocument(ctx context.Context, path string, ok func(tools.Document, bool) bool) bool {
	return o.s.Wait(ctx, path, func(text string, version int32, open bool) bool {
		return ok(tools.Document{Text: text, Version: version}, open)
	})
}

var _ tools.OverlayWaiter = docOverlay{}
