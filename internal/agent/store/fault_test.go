package store

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// TestFaultStoreBusy: another process holds the database's write lock
// while a session appends to its journal. The append waits for the lock
// (busy timeout) instead of failing with "database is locked", and the
// record is stored once, in order.
func TestFaultStoreBusy(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	if err := s.SaveSession(ctx, SessionInfo{ID: "s1", Workspace: ws(t), Created: time.Now(), Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendRecord(ctx, "s1", "message", `{"n":1}`); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatalf("take the write lock: %v", err)
	}
	appended := make(chan error, 1)
	go func() {
		_, err := s.AppendRecord(ctx, "s1", "message", `{"n":2}`)
		appended <- err
	}()
	// The append is waiting on the lock; the other process commits.
	select {
	case err := <-appended:
		t.Fatalf("append returned while another process held the lock: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := <-appended; err != nil {
		t.Fatalf("append after the lock was released: %v", err)
	}
	recs, err := s.Records(ctx, "s1")
	if err != nil || len(recs) != 2 || recs[1].Data != `{"n":2}` {
		t.Fatalf("records %+v, %v", recs, err)
	}
}
