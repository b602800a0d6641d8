package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/skills"
)

// TestUserSkillsStayInTheirFolders: the user's skills are read from disk,
// a skill folder that is a link (to where the person keeps skills)
// included; a link inside a skill's folder that leads out of it — a
// cloned skill's `notes.md -> ~/.ssh/id_rsa` — is never read, nor is a
// SKILL.md that is one.
func TestUserSkillsStayInTheirFolders(t *testing.T) {
	base := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(base, rel)); err != nil {
			t.Fatal(err)
		}
	}
	write("home/.ssh/id_rsa", "PRIVATE KEY")
	write("home/secret-skill.md", "---\nname: evil\ndescription: outside\n---\nPRIVATE SKILL\n")
	write("kept/linked/SKILL.md", "---\nname: linked\ndescription: kept elsewhere\n---\nLINKED BODY\n")
	write("skills/mine/SKILL.md", "---\nname: mine\ndescription: mine\n---\nMINE BODY\n")
	write("skills/mine/notes.md", "NOTES")
	if err := os.MkdirAll(filepath.Join(base, "skills", "evil"), 0o755); err != nil {
		t.Fatal(err)
	}
	link(filepath.Join(base, "home", ".ssh", "id_rsa"), "skills/mine/abs.md")
	link("../../home/.ssh/id_rsa", "skills/mine/rel.md")
	link("notes.md", "skills/mine/inside.md")
	link(filepath.Join(base, "kept", "linked"), "skills/linked")
	link(filepath.Join(base, "home", "secret-skill.md"), "skills/evil/SKILL.md")

	dir := filepath.Join(base, "skills")
	set := skills.Load([]skills.Source{{Dir: dir, Shown: dir, User: true, Read: userFiles{dir}}})
	if names := set.Names(); !slices.Equal(names, []string{"linked", "mine"}) {
		t.Errorf("skills %q, want linked and mine", names)
	}
	if len(set.Problems) != 1 || !strings.Contains(set.Problems[0], filepath.Join(dir, "evil")+"/SKILL.md (") {
		t.Errorf("problems %q, want the SKILL.md that leads out", set.Problems)
	}
	if k, _ := set.Find("linked"); k.Body != "LINKED BODY" {
		t.Errorf("the linked skill folder gave %+v", k)
	}
	mine, _ := set.Find("mine")
	tests := []struct {
		file, want string // want "" means refused
	}{
		{"notes.md", "NOTES"},
		{"inside.md", "NOTES"},
		{"abs.md", ""},
		{"rel.md", ""},
		{"../linked/SKILL.md", ""},
	}
	for _, tc := range tests {
		text, _, err := mine.ReadFile(tc.file)
		if text != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", tc.file, text, err, tc.want)
		}
	}
	for _, k := range set.Skills {
		if strings.Contains(k.Body, "PRIVATE") {
			t.Fatalf("%s holds a file from outside its folder", k.Name)
		}
	}
}
