package store

import (
	"context"
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
