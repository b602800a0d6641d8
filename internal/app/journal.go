package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/model"
	"github.com/agentls/agentls/internal/agent/store"
)

// storeJournal writes a session's records to the history store as they
// happen, and names the session after its first prompt.
type storeJournal struct {
	st   *store.Store
	info store.SessionInfo

	mu     sync.Mutex
	titled bool
}

// Append implements agent.Journal.
func (j *storeJournal) Append(kind string, data json.RawMessage) error {
	ctx := context.Background()
	if kind == agent.RecordMessage {
		j.mu.Lock()
		needTitle, info := !j.titled, j.info
		j.mu.Unlock()
		if needTitle {
			var m agent.Message
			if json.Unmarshal(data, &m) == nil && m.Role == agent.RoleUser {
				info.Title = title(m.Content)
				if err := j.st.SaveSession(ctx, info); err != nil {
					return err
				}
				j.mu.Lock()
				j.titled = true
				j.mu.Unlock()
			}
		}
	}
	if _, err := j.st.AppendRecord(ctx, j.info.ID, kind, string(data)); err != nil {
		return err
	}
	if kind == agent.RecordModel {
		// The sessions list shows the model the session runs now.
		var m struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(data, &m) == nil && m.Model != "" {
			j.mu.Lock()
			j.info.Model = m.Model
			info := j.info
			j.mu.Unlock()
			return j.st.SaveSession(ctx, info)
		}
	}
	return nil
}

// title shortens a first prompt to a session's name.
func title(prompt string) string {
	// The prompt as typed: not the file and selection agentls added.
	t := strings.Join(strings.Fields(agent.PromptOf(prompt)), " ")
	if r := []rune(t); len(r) > 80 {
		t = string(r[:80]) + "…"
	}
	return t
}

// ErrNoHistory is why a session cannot be resumed without the store.
var ErrNoHistory = errors.New("sessions are kept in the history database, which is not open")

// stored is the stored session a new one continues: its id and its
// state read back; zero for a new session.
type stored struct {
	id       string
	restored agent.Restored
}

// findStored reads the stored session so continues (Resume, or the
// workspace's latest with Continue). restored.Model is the model the
// session last ran: the journal's last model record, else its store
// entry's.
func (e *Env) findStored(ctx context.Context, so SessionOptions) (stored, error) {
	id := so.Resume
	if id == "" && !so.Continue {
		return stored{}, nil
	}
	st, stErr := e.Store(ctx)
	if id == "" {
		if stErr != nil {
			return stored{}, fmt.Errorf("continue the last session: %w (%v)", ErrNoHistory, stErr)
		}
		latest, err := st.LatestSession(ctx, e.firstRoot())
		if err != nil {
			return stored{}, fmt.Errorf("continue the last session: %w", err)
		}
		id = latest.ID
	}
	if stErr != nil {
		return stored{}, fmt.Errorf("resume session %s: %w (%v)", id, ErrNoHistory, stErr)
	}
	info, err := st.Session(ctx, id)
	if err != nil {
		return stored{}, fmt.Errorf("resume session %s: %w: see the sessions list", id, err)
	}
	restored, err := e.loadRecords(ctx, st, id)
	if err != nil {
		return stored{}, err
	}
	if restored.Model == "" {
		restored.Model = info.Model
	}
	return stored{id: id, restored: restored}, nil
}

// startJournal registers the session (new or continued) in the store
// with the model it runs now and returns its journal; nil without a store
// (the conversation is then kept in memory only; Gate already warned).
func (e *Env) startJournal(ctx context.Context, id, spec, channel string, titled bool) agent.Journal {
	st, err := e.Store(ctx)
	if err != nil {
		return nil
	}
	info := store.SessionInfo{ID: id, Workspace: e.firstRoot(), Model: spec, Channel: channel}
	if err := st.SaveSession(ctx, info); err != nil {
		e.app.log.Warn("the session will not be saved", "error", err)
		return nil
	}
	return &storeJournal{st: st, info: info, titled: titled}
}

// Journal is a stored session's records, in order (store.ErrNoSession
// when there is no such session).
func (e *Env) Journal(ctx context.Context, id string) ([]agent.JournalRecord, error) {
	st, err := e.Store(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := st.Session(ctx, id); err != nil {
		return nil, err
	}
	return journalRecords(ctx, st, id)
}

// journalRecords reads a session's records from the store.
func journalRecords(ctx context.Context, st *store.Store, id string) ([]agent.JournalRecord, error) {
	recs, err := st.Records(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]agent.JournalRecord, len(recs))
	for i, r := range recs {
		out[i] = agent.JournalRecord{Kind: r.Kind, Data: json.RawMessage(r.Data)}
	}
	return out, nil
}

// loadRecords reads a stored session back into the state it was in.
func (e *Env) loadRecords(ctx context.Context, st *store.Store, id string) (agent.Restored, error) {
	jr, err := journalRecords(ctx, st, id)
	if err != nil {
		return agent.Restored{}, fmt.Errorf("resume session %s: %w", id, err)
	}
	restored, err := agent.Restore(jr)
	if err != nil {
		return restored, fmt.Errorf("resume session %s: %w", id, err)
	}
	return restored, nil
}

// price is what spec's model costs (the settings' price, else agentls's
// estimate); nil when nobody knows, so the session counts tokens only.
func price(spec string, set Settings) *agent.Price {
	if p, ok := model.PriceOf(spec, set.Config.Providers); ok {
		return &p
	}
	return nil
}

// StoredSession reads a stored session of this workspace: its description
// and its conversation as the model last saw it, for a front-end to show
// on resume.
func (e *Env) StoredSession(ctx context.Context, id string) (store.SessionInfo, agent.Restored, error) {
	st, err := e.Store(ctx)
	if err != nil {
		return store.SessionInfo{}, agent.Restored{}, err
	}
	info, err := st.Session(ctx, id)
	if err != nil {
		return info, agent.Restored{}, err
	}
	restored, err := e.loadRecords(ctx, st, id)
	return info, restored, err
}
