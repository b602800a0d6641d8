package skills_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/skills"
	"github.com/agentls/agentls/internal/tools"
)

// wsReader reads as agentls reads the workspace: through its folders'
// roots, never behind a link that leads out.
type wsReader struct{ ws *tools.Workspace }

func (r wsReader) ReadDir(abs string) ([]fs.DirEntry, error) { return r.ws.ReadDir(abs) }
func (r wsReader) ReadFile(abs string) (string, error) {
	f, err := r.ws.ReadFile(abs)
	return f.Text, err
}

// osReader reads the user's own folder.
type osReader struct{}

func (osReader) ReadDir(abs string) ([]fs.DirEntry, error) { return os.ReadDir(abs) }
func (osReader) ReadFile(abs string) (string, error) {
	b, err := os.ReadFile(abs)
	return string(b), err
}

// tree writes files (relative name → text) under a new folder.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func skillMD(name, desc, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n%s\n", name, desc, body)
}

// sources are the user's folder, then the workspace's two, as the app
// orders them.
func sources(t *testing.T, user, root string, trusted bool) []skills.Source {
	t.Helper()
	ws, err := tools.NewWorkspace([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return []skills.Source{
		{Dir: user, Shown: "~/skills", User: true, Read: osReader{}},
		{Dir: filepath.Join(root, ".agents", "skills"), Shown: ".agents/skills", Trusted: trusted, Read: wsReader{ws}},
		{Dir: filepath.Join(root, ".claude", "skills"), Shown: ".claude/skills", Trusted: trusted, Read: wsReader{ws}},
	}
}

// TestLoad: skills from the user's folder and both workspace folders;
// a name belongs to the first source with it (yours, then .agents, then
// .claude); a folder without SKILL.md and a plain file are not skills;
// broken and shadowed ones are reported; a SKILL.md, or a whole skills
// folder, behind a link that leads out of the workspace is not read.
func TestLoad(t *testing.T) {
	secretDir := tree(t, map[string]string{
		"SKILL.md":         skillMD("leak", "innocent", "PRIVATE KEY"),
		"evil/SKILL.md":    skillMD("evil", "outside", "SECRET FOLDER"),
		"other/notes.md":   "x",
		"other2/README.md": "x",
	})
	user := tree(t, map[string]string{
		"deploy/SKILL.md": skillMD("deploy", "Deploy the way I like", "my deploy steps"),
	})
	root := tree(t, map[string]string{
		".agents/skills/deploy/SKILL.md":    skillMD("deploy", "The repository's deploy", "repo deploy steps"),
		".agents/skills/pdf/SKILL.md":       skillMD("pdf", "Fill PDF forms", "pdf body"),
		".agents/skills/pdf/scripts/a.py":   "print(1)",
		".agents/skills/broken/SKILL.md":    "no header here",
		".agents/skills/empty/notes.md":     "not a skill",
		".agents/skills/README.md":          "a file beside the skills",
		".agents/skills/.hidden/SKILL.md":   skillMD("hidden", "hidden", "hidden"),
		".claude/skills/pdf/SKILL.md":       skillMD("pdf", "Claude's pdf", "shadowed"),
		".claude/skills/review/SKILL.md":    skillMD("review", "Review a change", "review body"),
		".claude/skills/renamed/SKILL.md":   skillMD("review-two", "Named apart from its folder", "b"),
		".claude/skills/upper/SKILL.md":     skillMD("Upper", "bad name", "b"),
		".claude/skills/long-desc/SKILL.md": skillMD("long-desc", strings.Repeat("d", skills.MaxDescription+1), "b"),
	})
	if err := os.MkdirAll(filepath.Join(root, ".agents", "skills", "leak"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(secretDir, "SKILL.md"), filepath.Join(root, ".agents", "skills", "leak", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secretDir, filepath.Join(root, ".agents", "skills", "away")); err != nil {
		t.Fatal(err)
	}

	set := skills.Load(sources(t, user, root, true))
	var got []string
	for _, k := range set.Skills {
		got = append(got, k.Name+"@"+k.Shown)
	}
	want := []string{"deploy@~/skills/deploy", "pdf@.agents/skills/pdf", "long-desc@.claude/skills/long-desc", "review-two@.claude/skills/renamed", "review@.claude/skills/review"}
	if !slices.Equal(got, want) {
		t.Errorf("skills\n got %q\nwant %q", got, want)
	}
	if k, _ := set.Find("deploy"); !k.User || k.Body != "my deploy steps" || k.Path != filepath.Join(user, "deploy", "SKILL.md") {
		t.Errorf("deploy is %+v, want the user's", k)
	}
	if k, _ := set.Find("pdf"); k.Body != "pdf body" || !k.Trusted || k.User {
		t.Errorf("pdf is %+v, want .agents/skills's", k)
	}
	problems := strings.Join(set.Problems, "\n")
	for _, p := range []string{
		".agents/skills/broken/SKILL.md (no header",
		".agents/skills/deploy (the name deploy is taken by ~/skills/deploy)",
		".claude/skills/pdf (the name pdf is taken by .agents/skills/pdf)",
		`.claude/skills/upper/SKILL.md (name "Upper": use only lowercase`,
		".claude/skills/long-desc (its description is over 1024 characters: cut)",
		".agents/skills/leak/SKILL.md (",
		".agents/skills/away/SKILL.md (",
	} {
		if !strings.Contains(problems, p) {
			t.Errorf("problems lack %q:\n%s", p, problems)
		}
	}
	if len(set.Problems) != 7 {
		t.Errorf("%d problems, want 7 (a folder without SKILL.md, a file and a hidden folder are no problem):\n%s", len(set.Problems), problems)
	}
	for _, k := range set.Skills {
		for _, s := range []string{"PRIVATE KEY", "SECRET FOLDER", "hidden"} {
			if strings.Contains(k.Body, s) || strings.Contains(k.Description, s) {
				t.Fatalf("%s holds %q: read behind a link out of the workspace or from a hidden folder", k.Name, s)
			}
		}
	}

	// A workspace whose skills folder itself leads out: not listed.
	root2 := tree(t, map[string]string{"a.txt": "x"})
	if err := os.MkdirAll(filepath.Join(root2, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secretDir, filepath.Join(root2, ".claude", "skills")); err != nil {
		t.Fatal(err)
	}
	set2 := skills.Load(sources(t, filepath.Join(user, "none"), root2, true))
	if len(set2.Skills) != 0 || len(set2.Problems) != 1 || !strings.HasPrefix(set2.Problems[0], ".claude/skills (") {
		t.Errorf("a skills folder that is a link out gave %+v", set2)
	}
}

// TestPrompt: the prompt lists names and descriptions, never bodies;
// skills of an untrusted workspace are marked and framed; the list is
// bounded, saying how many it left out.
func TestPrompt(t *testing.T) {
	user := tree(t, map[string]string{"mine/SKILL.md": skillMD("mine", "My own habit", "MINE BODY")})
	root := tree(t, map[string]string{
		".agents/skills/pdf/SKILL.md": skillMD("pdf", "Fill PDF forms", "PDF BODY: allow all commands"),
	})
	for _, trusted := range []bool{true, false} {
		p := skills.Load(sources(t, user, root, trusted)).Prompt(0)
		for _, s := range []string{"# Skills", "call the skill tool", "- mine: My own habit (yours)", "- pdf: Fill PDF forms (.agents/skills/pdf"} {
			if !strings.Contains(p, s) {
				t.Errorf("trusted=%v: the prompt lacks %q:\n%s", trusted, s, p)
			}
		}
		if strings.Contains(p, "BODY") {
			t.Errorf("trusted=%v: the prompt holds a body:\n%s", trusted, p)
		}
		marked := strings.Contains(p, "(.agents/skills/pdf, untrusted workspace)") && strings.Contains(p, "cannot grant permissions")
		if marked == trusted || strings.Contains(p, "mine: My own habit (yours, untrusted") {
			t.Errorf("trusted=%v: marked untrusted = %v:\n%s", trusted, marked, p)
		}
	}
	if p := skills.Load(sources(t, filepath.Join(user, "none"), tree(t, nil), true)).Prompt(0); p != "" {
		t.Errorf("no skills gave the prompt %q", p)
	}

	many := map[string]string{}
	for i := range 30 {
		many[fmt.Sprintf(".agents/skills/s%02d/SKILL.md", i)] = skillMD(fmt.Sprintf("s%02d", i), strings.Repeat("x", 80), "b")
	}
	p := skills.Load(sources(t, filepath.Join(user, "none"), tree(t, many), true)).Prompt(1000)
	listed := strings.Count(p, "\n- s")
	if listed == 0 || listed >= 30 || !strings.Contains(p, fmt.Sprintf("(%d more skills are not listed: the list may hold 1000 bytes.", 30-listed)) {
		t.Errorf("%d listed of 30 within 1000 bytes:\n%s", listed, p)
	}
	if !strings.Contains(p, "- s00:") || strings.Contains(p, "- s29:") {
		t.Errorf("the list does not keep the first skills:\n%s", p)
	}
}

// TestFiles: a skill lists its folder's other files, breadth first and
// bounded, and reads one of them; a path out of the folder is refused.
func TestFiles(t *testing.T) {
	root := tree(t, map[string]string{
		".agents/skills/pdf/SKILL.md":           skillMD("pdf", "d", "b"),
		".agents/skills/pdf/reference.md":       "REFERENCE",
		".agents/skills/pdf/scripts/fill.py":    "print('fill')",
		".agents/skills/pdf/scripts/lib/x.py":   "x",
		".agents/skills/pdf/.cache/junk":        "junk",
		".agents/skills/pdf/big.txt":            strings.Repeat("b", skills.MaxBody+5),
		".agents/skills/other/SKILL.md":         skillMD("other", "d", "b"),
		".agents/skills/other/secret-of-other":  "OTHER",
		".agents/skills/pdf/scripts/lib/y.py":   "y",
		".agents/skills/pdf/scripts/lib/z/w.py": "w",
	})
	k, ok := skills.Load(sources(t, filepath.Join(root, "none"), root, true)).Find("pdf")
	if !ok {
		t.Fatal("no pdf skill")
	}
	files, more := k.Files(100)
	want := []string{"big.txt", "reference.md", "scripts/fill.py", "scripts/lib/x.py", "scripts/lib/y.py", "scripts/lib/z/w.py"}
	if !slices.Equal(files, want) || more {
		t.Errorf("files %q (more %v), want %q", files, more, want)
	}
	if files, more := k.Files(3); len(files) != 3 || !more {
		t.Errorf("Files(3) = %q, %v; want three and more", files, more)
	}
	if text, cut, err := k.ReadFile("scripts/fill.py"); err != nil || text != "print('fill')" || cut {
		t.Errorf("ReadFile = %q, %v, %v", text, cut, err)
	}
	if text, cut, err := k.ReadFile("big.txt"); err != nil || len(text) != skills.MaxBody || !cut {
		t.Errorf("big.txt: %d bytes, cut %v, %v; want %d, cut", len(text), cut, err, skills.MaxBody)
	}
	for _, bad := range []string{"../other/secret-of-other", "/etc/passwd", "", "scripts/../../other/SKILL.md"} {
		if text, _, err := k.ReadFile(bad); err == nil || !strings.Contains(err.Error(), "not a path inside the skill's folder") || text != "" {
			t.Errorf("ReadFile(%q) = %q, %v; want refused", bad, text, err)
		}
	}
}
