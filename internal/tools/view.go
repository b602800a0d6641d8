package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed view.md
var viewDescription string

const (
	// viewDefaultLimit is how many lines view returns when limit is unset.
	viewDefaultLimit = 200
	// viewMaxLineBytes cuts minified or generated lines to a readable size.
	viewMaxLineBytes = 2000
	// viewMaxSection caps one returned section, line numbers included.
	viewMaxSection = 200 << 10
)

type viewInput struct {
	FilePath string `json:"file_path" jsonschema:"File to read: relative to the first workspace folder, or absolute."`
	Offset   int    `json:"offset,omitempty" schema:"minimum=0" jsonschema:"0-based index of the first line to show; line N+1 in the numbered output is offset N. Default 0."`
	Limit    int    `json:"limit,omitempty" schema:"minimum=1" jsonschema:"How many lines to show. Default 200."`
}

var viewSchema = schemaFor[viewInput]()

// ViewTool shows a text file with line numbers. It reads through the
// workspace overlay, so the model sees what the person sees in the editor,
// unsaved changes included.
type ViewTool struct {
	ws *Workspace
}

// NewViewTool returns the view tool over ws.
func NewViewTool(ws *Workspace) *ViewTool { return &ViewTool{ws: ws} }

// Spec describes view: capability fs.read, read-only.
func (t *ViewTool) Spec() Spec {
	return readSpec("view", viewDescription, viewSchema(), "fs.read")
}

func (t *ViewTool) parse(call Call) (viewInput, string, error) {
	var in viewInput
	if err := viewSchema().decode(call, "view", &in); err != nil {
		return in, "", err
	}
	if in.Offset < 0 {
		return in, "", fmt.Errorf("view: offset %d is negative: use 0 for the first line", in.Offset)
	}
	if in.Limit < 0 {
		return in, "", fmt.Errorf("view: limit %d is negative: leave it out for %d lines", in.Limit, viewDefaultLimit)
	}
	if in.Limit == 0 {
		in.Limit = viewDefaultLimit
	}
	abs, err := target(t.ws, in.FilePath, "file_path", false)
	if err != nil {
		return in, "", fmt.Errorf("view: %w", err)
	}
	return in, abs, nil
}

// Describe validates the input and names the file for the gate.
func (t *ViewTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	_, abs, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	return readRequest(t.Spec(), t.ws, abs, "agentls wants to read "+display(t.ws, abs)), nil
}

// Run reads the file and returns the numbered section.
func (t *ViewTool) Run(ctx context.Context, call Call) (Result, error) {
	in, abs, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if !t.ws.Inside(abs) {
		return Errorf("%s", outsideMessage(t.ws, abs)), nil
	}
	f, err := t.ws.ReadFile(abs)
	if err != nil {
		return t.readError(in.FilePath, abs, err), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	t.ws.RecordRead(call.SessionID, f)

	lines := splitLines(f.Text)
	var b strings.Builder
	if f.Open {
		b.WriteString(bufferNote(t.ws, f))
	}
	b.WriteString("<file>\n")
	switch {
	case len(lines) == 0:
		b.WriteString("(File is empty.)\n")
	case in.Offset >= len(lines):
		return Errorf("offset %d is past the end of %s, which has %d lines: use an offset below %d.", in.Offset, in.FilePath, len(lines), len(lines)), nil
	default:
		end := len(lines)
		if in.Limit < end-in.Offset {
			end = in.Offset + in.Limit
		}
		size := 0
		for i := in.Offset; i < end; i++ {
			row := fmt.Sprintf("%6d|%s\n", i+1, cutLine(lines[i], viewMaxLineBytes))
			if size+len(row) > viewMaxSection {
				fit := i - in.Offset
				return Errorf("Lines %d-%d of %s are over the %d-byte (200 KiB) limit for one view. Read fewer lines at a time: e.g. offset=%d limit=%d, then continue from offset=%d.",
					in.Offset+1, end, in.FilePath, viewMaxSection, in.Offset, fit, in.Offset+fit), nil
			}
			size += len(row)
			b.WriteString(row)
		}
		if end < len(lines) {
			fmt.Fprintf(&b, "\n(File has more lines. Use 'offset' parameter to read beyond line %d)\n", end)
		}
	}
	b.WriteString("</file>")
	return Result{Content: b.String()}, nil
}

// splitLines splits text into lines without their \n or \r\n. A final
// newline ends the last line; it does not start an empty one.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// bufferNote tells the model when it is reading an editor buffer that
// differs from disk: shell commands and builds see the disk version, and
// the model should not be surprised by the difference.
func bufferNote(ws *Workspace, f File) string {
	disk, _, err := ws.readDisk(f.Path)
	switch {
	case isNotExist(err):
		return fmt.Sprintf("(Showing the editor's unsaved buffer, version %d: the file is not saved to disk yet, so shell commands and builds do not see it.)\n", f.Version)
	case err != nil || string(disk) == f.Text:
		return ""
	}
	return fmt.Sprintf("(Showing the editor's unsaved buffer, version %d: it differs from the file on disk, which shell commands and builds see.)\n", f.Version)
}

func (t *ViewTool) readError(given, abs string, err error) Result {
	switch {
	case isNotExist(err):
		return notFound(t.ws, "File", given, abs)
	case errors.Is(err, ErrBinary):
		return Errorf("Cannot view %s: it is a binary file (not UTF-8 text). view shows text files only.", given)
	}
	if fi, serr := t.ws.statDisk(abs); serr == nil && fi.IsDir() {
		return Errorf("%s is a directory, not a file. Use the ls tool to list it.", given)
	}
	return Errorf("Cannot read %s: %v", given, err)
}
