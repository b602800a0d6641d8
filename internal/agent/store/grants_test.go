package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"
)

func TestGrants(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	g := Grant{Workspace: "/w/", Tool: "bash", Capability: "shell.exec", Action: "execute", Scope: "cmd:go test"}
	if ok, err := s.HasGrant(ctx, g); err != nil || ok {
		t.Fatalf("HasGrant before save = %v, %v", ok, err)
	}
	for i := 0; i < 2; i++ {
		if err := s.SaveGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveGrant(ctx, Grant{Workspace: "rel", Tool: "x"}); err == nil {
		t.Error("relative workspace accepted")
	}
	s.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ok, _ := s.HasGrant(ctx, Grant{Workspace: "/w", Tool: "bash", Capability: "shell.exec", Action: "execute", Scope: "cmd:go test"}); !ok {
		t.Error("grant not kept across reopen (or /w/ and /w differ)")
	}
	other := g
	other.Scope = "cmd:go build"
	if ok, _ := s.HasGrant(ctx, other); ok {
		t.Error("a grant for go test covers go build")
	}
	gs, err := s.Grants(ctx, "/w")
	if err != nil || len(gs) != 1 || gs[0].Scope != "cmd:go test" {
		t.Errorf("Grants = %+v, %v", gs, err)
	}
	if gone, err := s.RevokeGrant(ctx, g); err != nil || !gone {
		t.Errorf("RevokeGrant = %v, %v", gone, err)
	}
	if ok, _ := s.HasGrant(ctx, g); ok {
		t.Error("grant still there after revoke")
	}
}

// TestGrantsKeyedByEnv: a grant covers only the environment it was given
// for; grants for the same scope in two environments (two packages of a
// monorepo) are both kept, and each is revoked on its own.
func TestGrantsKeyedByEnv(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	a := Grant{Workspace: "/w", Tool: "bash", Capability: "shell.exec", Action: "execute", Scope: "cmd:npm test", Env: "env:a"}
	b := a
	b.Env = "env:b"
	if err := s.SaveGrant(ctx, a); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		g    Grant
		want bool
	}{{a, true}, {b, false}, {Grant{Workspace: "/w", Tool: "bash", Capability: "shell.exec", Action: "execute", Scope: "cmd:npm test"}, false}} {
		if ok, err := s.HasGrant(ctx, tc.g); err != nil || ok != tc.want {
			t.Errorf("HasGrant(env %q) = %v, %v; want %v", tc.g.Env, ok, err, tc.want)
		}
	}
	if err := s.SaveGrant(ctx, b); err != nil {
		t.Fatal(err)
	}
	if gs, _ := s.Grants(ctx, "/w"); len(gs) != 2 || gs[0].Env != "env:a" || gs[1].Env != "env:b" {
		t.Errorf("Grants = %+v, want both environments", gs)
	}
	if gone, _ := s.RevokeGrant(ctx, a); !gone {
		t.Error("revoke of env:a removed nothing")
	}
	if ok, _ := s.HasGrant(ctx, b); !ok {
		t.Error("revoking env:a removed env:b")
	}
}

// TestGrantsMigration: a database from before grants carried an
// environment keeps its grants, except those for programs whose
// environment is now bound, which are dropped (asked once more).
func TestGrantsMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agentls.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	for v, m := range migrations()[:3] {
		if _, err := db.ExecContext(ctx, m); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_ns INTEGER NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, 0)`, v+1); err != nil {
			t.Fatal(err)
		}
	}
	kept := []string{"dir:internal", "host:docs.python.org", "tool:mcp_fs_write", "cmd:git commit", "cmd:sed -i s/a/b/ a.txt", "cmd:gofmt", "cmd:golangci-lint run", "cmd:makeself x", "cmd:nodemon"}
	dropped := []string{"cmd:go test", "cmd:go mod tidy", "cmd:npm test", "cmd:npm run build", "cmd:pnpm test", "cmd:yarn test", "cmd:bun test", "cmd:npx eslint",
		"cmd:node scripts/x.js", "cmd:node22 x.js", "cmd:make", "cmd:make test", "cmd:gmake all", "cmd:cargo test", "cmd:pytest", "cmd:python3 scripts/gen.py", "cmd:python -m pytest"}
	for i, scope := range append(append([]string{}, kept...), dropped...) {
		if _, err := db.ExecContext(ctx, `INSERT INTO grants VALUES ('/w', 'bash', 'shell.exec', 'execute', ?, ?)`, scope, i); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	gs, err := s.Grants(ctx, "/w")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range gs {
		got = append(got, g.Scope)
		if g.Env != "" {
			t.Errorf("%s: migrated with env %q", g.Scope, g.Env)
		}
	}
	if !reflect.DeepEqual(got, kept) {
		t.Errorf("after the migration: %q, want %q", got, kept)
	}
}
