package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/skills"
)

// skillReader reads a workspace for the skills package as agentls does.
type skillReader struct{ ws *Workspace }

func (r skillReader) ReadDir(abs string) ([]fs.DirEntry, error) { return r.ws.ReadDir(abs) }
func (r skillReader) ReadFile(abs string) (string, error) {
	f, err := r.ws.ReadFile(abs)
	return f.Text, err
}

// diskReader reads the user's folder.
type diskReader struct{}

func (diskReader) ReadDir(abs string) ([]fs.DirEntry, error) { return os.ReadDir(abs) }
func (diskReader) ReadFile(abs string) (string, error) {
	b, err := os.ReadFile(abs)
	return string(b), err
}

// skillWorld is a workspace with a skill (pdf, with files), a broken
// one, and a user folder with one skill (mine), behind the skill tool;
// trusted says whether the workspace is.
func skillWorld(t *testing.T, trusted bool) (*SkillTool, string, string) {
	t.Helper()
	ws, root := newTestWS(t, nil)
	writeFiles(t, root, map[string]string{
		".agents/skills/pdf/SKILL.md":        "---\nname: pdf\ndescription: Fill PDF forms\n---\nPDF BODY: run scripts/fill.py\n",
		".agents/skills/pdf/scripts/fill.py": "print('fill')\n",
		".agents/skills/pdf/reference.md":    "REFERENCE TEXT\n",
		".agents/skills/broken/SKILL.md":     "---\nname: Broken\ndescription: d\n---\n",
		".agents/skills/big/SKILL.md":        "---\nname: big\ndescription: d\n---\n" + strings.Repeat("BIG ", skills.MaxBody/4) + "TAIL",
	})
	user := t.TempDir()
	writeFiles(t, user, map[string]string{"mine/SKILL.md": "---\nname: mine\ndescription: My habit\n---\nMINE BODY\n", "mine/notes.md": "MY NOTES\n"})
	find := func() skills.Set {
		return skills.Load([]skills.Source{
			{Dir: user, Shown: "your skills", User: true, Read: diskReader{}},
			{Dir: filepath.Join(root, ".agents", "skills"), Shown: ".agents/skills", Trusted: trusted, Read: skillReader{ws}},
		})
	}
	return NewSkillTool(ws, find), root, user
}

// TestSkillTool: the tool returns a skill's instructions, folder and
// files (and one file on request), frames an untrusted workspace's skill
// as information, and names the skills there are when asked for one
// that is not; what it describes for the gate is a read of the skill's
// file, or (the user's own) of no workspace path.
func TestSkillTool(t *testing.T) {
	tool, root, user := skillWorld(t, false)
	if sp := tool.Spec(); sp.Capability != "fs.read" || !sp.ReadOnly || sp.Action != permission.ActionRead || KindOf(sp) != KindRead {
		t.Errorf("spec %+v, want a read-only fs.read of kind read", sp)
	}
	pdfMD := filepath.Join(root, ".agents", "skills", "pdf", "SKILL.md")
	tests := []struct {
		name      string
		input     map[string]string
		paths     []string // what Describe names
		summary   string
		describeE string // part of Describe's error; "" means none
		want      []string
		notWant   []string
	}{
		{name: "workspace skill", input: map[string]string{"name": "pdf"}, paths: []string{pdfMD}, summary: "the skill pdf (.agents/skills/pdf/SKILL.md)",
			want:    []string{`<skill name="pdf" folder=".agents/skills/pdf">`, "PDF BODY: run scripts/fill.py", "- reference.md\n- scripts/fill.py", "workspace that is not trusted", "cannot grant permissions"},
			notWant: []string{"REFERENCE TEXT", "---", "description:"}},
		{name: "workspace skill's file", input: map[string]string{"name": "pdf", "file": "reference.md"},
			paths: []string{filepath.Join(root, ".agents", "skills", "pdf", "reference.md")}, summary: "reference.md of the skill pdf",
			want: []string{`<skill_file skill="pdf" path="reference.md">`, "REFERENCE TEXT", "not trusted"}, notWant: []string{"PDF BODY"}},
		{name: "user's skill", input: map[string]string{"name": "mine"}, summary: "the skill mine from your skills",
			want: []string{`folder="` + filepath.Join(user, "mine") + `"`, "MINE BODY", "- notes.md"}, notWant: []string{"not trusted", "MY NOTES"}},
		{name: "user's skill's file", input: map[string]string{"name": "mine", "file": "notes.md"}, summary: "notes.md of the skill mine from your skills",
			want: []string{"MY NOTES"}},
		{name: "instructions over the limit", input: map[string]string{"name": "big"}, paths: []string{filepath.Join(root, ".agents", "skills", "big", "SKILL.md")}, summary: "the skill big",
			want: []string{"BIG BIG", "BIG \n(cut here: the skill tool returns at most 65536 bytes of instructions)\n</skill>"}, notWant: []string{"TAIL"}},
		{name: "unknown", input: map[string]string{"name": "pfd"},
			describeE: `there is no skill "pfd"; the skills are: mine, big, pdf` + "\nLeft out:\n- .agents/skills/broken/SKILL.md (name \"Broken\""},
		{name: "a file out of the folder", input: map[string]string{"name": "pdf", "file": "../broken/SKILL.md"}, describeE: "not a path inside the skill's folder"},
		{name: "a missing file", input: map[string]string{"name": "pdf", "file": "nope.md"}, paths: []string{filepath.Join(root, ".agents", "skills", "pdf", "nope.md")},
			summary: "nope.md", want: []string{"skill pdf has no file nope.md; its files are: reference.md, scripts/fill.py"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := describeTool(t, tool, tc.input)
			if tc.describeE != "" {
				if err == nil || !strings.Contains(err.Error(), tc.describeE) {
					t.Fatalf("Describe error %v, want %q", err, tc.describeE)
				}
				if res := callTool(t, tool, tc.input); !res.IsError || !strings.Contains(res.Content, tc.describeE) {
					t.Errorf("Run gave %+v, want the same error", res)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !req.ReadOnly || req.Capability != "fs.read" || req.OutsideRoots || strings.Join(req.Paths, "|") != strings.Join(tc.paths, "|") || !strings.Contains(req.Summary, tc.summary) {
				t.Errorf("request %+v, want a read-only fs.read of %q saying %q", req, tc.paths, tc.summary)
			}
			res := callTool(t, tool, tc.input)
			checkResult(t, res, strings.Contains(tc.name, "missing"), tc.want, tc.notWant)
		})
	}
}

// TestSkillThroughTheGate: loading a skill is not asked in smart mode,
// whether it is the workspace's (a read inside it) or the user's own
// (agentls's configuration); approve mode asks, as it does for view.
func TestSkillThroughTheGate(t *testing.T) {
	tool, root, _ := skillWorld(t, false)
	for _, mode := range []permission.Mode{permission.ModeSmart, permission.ModeApprove} {
		asked := 0
		pol := permission.DefaultPolicy()
		pol.Mode = mode
		g, err := permission.New(permission.Options{Policy: pol, Roots: func() []string { return []string{root} },
			Asker: askFunc(func(permission.Question) permission.Answer { asked++; return permission.AnswerDeny })})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []map[string]string{{"name": "pdf"}, {"name": "mine"}, {"name": "pdf", "file": "scripts/fill.py"}} {
			req, err := describeTool(t, tool, in)
			if err != nil {
				t.Fatal(err)
			}
			req.SessionID = "s"
			d := g.Check(context.Background(), req)
			want := permission.Allow
			if mode == permission.ModeApprove {
				want = permission.Deny // asked, and the person said no
			}
			if d.Kind != want {
				t.Errorf("%s mode, %v: %s (%s), want %s", mode, in, d.Kind, d.Reason, want)
			}
		}
		if wantAsked := map[permission.Mode]int{permission.ModeSmart: 0, permission.ModeApprove: 3}[mode]; asked != wantAsked {
			t.Errorf("%s mode asked %d times, want %d", mode, asked, wantAsked)
		}
	}
}

// askFunc adapts a function to permission.Asker.
type askFunc func(permission.Question) permission.Answer

func (f askFunc) Ask(_ context.Context, q permission.Question) (permission.Answer, error) {
	return f(q), nil
}
