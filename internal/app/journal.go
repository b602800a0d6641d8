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
		needTitle := !j.titled
		j.mu.Unlock()
		if needTitle {
			var m agent.Message
			if json.Unmarshal(data, &m) == nil && m.Role == agent.RoleUser {
				info := j.info
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
	_, err := j.st.AppendRecord(ctx, j.info.ID, kind, string(data))
	return err
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

// openJournal starts or resumes a session's journal: a new session is
// registered in the store; a resumed one is read back.
func (e *Env) openJournal(ctx context.Context, so SessionOptions, spec string) (id string, j agent.Journal, restored agent.Restored, err error) {
	st, stErr := e.Store(ctx)
	id = so.Resume
	if so.Continue && id == "" {
		if stErr != nil {
			return "", nil, restored, fmt.Errorf("continue the last session: %w (%v)", ErrNoHistory, stErr)
		}
		latest, err := st.LatestSession(ctx, e.firstRoot())
		if err != nil {
			return "", nil, restored, fmt.Errorf("continue the last session: %w", err)
		}
		id = latest.ID
	}
	if id != "" {
		if stErr != nil {
			return "", nil, restored, fmt.Errorf("resume session %s: %w (%v)", id, ErrNoHistory, stErr)
		}
		if _, err := st.Session(ctx, id); err != nil {
			return "", nil, restored, fmt.Errorf("resume session %s: %w: see the sessions list", id, err)
		}
		if restored, err = e.loadRecords(ctx, st, id); err != nil {
			return "", nil, restored, err
		}
	} else {
		id = agent.NewSessionID()
	}
	if stErr != nil {
		return id, nil, restored, nil // in memory only; Gate already warned
	}
	info := store.SessionInfo{ID: id, Workspace: e.firstRoot(), Model: spec, Channel: so.Channel}
	if err := st.SaveSession(ctx, info); err != nil {
		e.app.log.Warn("the session will not be saved", "error", err)
		return id, nil, restored, nil
	}
	return id, &storeJournal{st: st, info: info, titled: len(restored.History) > 0}, restored, nil
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
