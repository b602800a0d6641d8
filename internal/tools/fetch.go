package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"

	"github.com/agentls/agentls/internal/netdest"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools/shell"
)

//go:embed fetch.md
var fetchDescription string

type fetchInput struct {
	URL      string `json:"url" jsonschema:"The http or https URL."`
	Format   string `json:"format,omitempty" schema:"enum=markdown|text|raw" jsonschema:"markdown (default for HTML), text or raw."`
	MaxBytes int    `json:"max_bytes,omitempty" schema:"minimum=1" jsonschema:"Most bytes of the body to read; default 1 MB, at most 5 MB."`
}

var fetchSchema = schemaFor[fetchInput]()

// Limits of one fetch.
const (
	fetchDefaultBytes = 1 << 20
	fetchMaxBytes     = 5 << 20
	fetchTimeout      = 30 * time.Second
	fetchRedirects    = 5
)

// FetchTool reads a web page. It is a download: capability net.fetch,
// asked by default and rule-able per host (net.fetch:docs.python.org); the
// egress inspector flags a URL that carries data out. It never connects
// to this machine or a private network: the address is checked when each
// connection is made (fetch_net.go), so no spelling of the host and no
// redirect gets past it.
type FetchTool struct {
	client    *http.Client
	outputDir string
}

// NewFetchTool returns the fetch tool; full texts of long pages go under
// outputDir.
func NewFetchTool(outputDir string) *FetchTool { return newFetchTool(outputDir, fetchNet{}) }

// newFetchTool returns the fetch tool reaching the network through n.
func newFetchTool(outputDir string, n fetchNet) *FetchTool {
	return &FetchTool{client: &http.Client{Transport: n.transport(), Timeout: fetchTimeout}, outputDir: outputDir}
}

// Spec describes fetch.
func (t *FetchTool) Spec() Spec {
	return Spec{Name: "fetch", Description: fetchDescription, Schema: fetchSchema().JSON,
		Capability: "net.fetch", Action: permission.ActionRead}
}

func (t *FetchTool) parse(call Call) (fetchInput, *url.URL, error) {
	var in fetchInput
	if err := fetchSchema().decode(call, "fetch", &in); err != nil {
		return in, nil, err
	}
	u, err := url.Parse(strings.TrimSpace(in.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return in, nil, fmt.Errorf("fetch: %q is not an http or https URL", in.URL)
	}
	if in.MaxBytes == 0 {
		in.MaxBytes = fetchDefaultBytes
	}
	in.MaxBytes = min(in.MaxBytes, fetchMaxBytes)
	return in, u, nil
}

// Describe names the URL: the gate asks per host. A host that is by its
// text on this machine or a private network is blocked outright: the
// fetch would be refused anyway, so no person is asked about it.
func (t *FetchTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	_, u, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	req := permission.Request{Tool: "fetch", Capability: "net.fetch", Action: permission.ActionRead,
		Destinations: []string{u.String()}, Summary: "agentls wants to fetch " + truncate(u.String(), 200)}
	if why := localHost(u.Hostname()); why != "" {
		req.Blocked = "fetch never reaches this machine or a private network (" + why + "); " + fetchLocalHint
	}
	return req, nil
}

// fetchLocalHint is what the model is told to do instead of fetching a
// local address.
const fetchLocalHint = "fetch public addresses only; for a local service run a command, which the person is asked about"

// errNewDestination stops a redirect to another host, port or scheme: the
// gate approved this destination only.
var errNewDestination = errors.New("redirect to a new destination")

// Run fetches and converts the body.
func (t *FetchTool) Run(ctx context.Context, call Call) (Result, error) {
	in, u, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	var redirected *url.URL
	c := *t.client
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		switch {
		case len(via) >= fetchRedirects:
			return fmt.Errorf("more than %d redirects", fetchRedirects)
		case req.URL.Scheme != "http" && req.URL.Scheme != "https":
			return fmt.Errorf("redirect to %s, which is not http or https", req.URL.Scheme)
		case !sameDestination(req.URL, u):
			redirected = req.URL
			return errNewDestination
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Errorf("fetch: %v", err), nil
	}
	req.Header.Set("User-Agent", "agentls (fetch tool)")
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json, */*;q=0.5")
	resp, err := c.Do(req)
	if redirected != nil {
		return Errorf("fetch: %s redirects to %s, a new destination (another host, port or scheme); fetch that URL if you still need it (it is asked separately)", u, redirected), nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		var refused *netdest.RefusedError
		if errors.As(err, &refused) {
			return Errorf("fetch %s: refused: %s is on this machine or a private network (loopback, private, link-local, shared CGNAT, cloud metadata or an IPv6 form of one); %s", u, refused.Addr, fetchLocalHint), nil
		}
		return Errorf("fetch %s: %v", u, err), nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(in.MaxBytes)+1))
	if err != nil {
		return Errorf("fetch %s: reading the body: %v", u, err), nil
	}
	cut := len(body) > in.MaxBytes
	if cut {
		body = body[:in.MaxBytes]
	}
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode >= 400 {
		return Errorf("fetch %s: the server answered %s: %s", u, resp.Status, truncate(string(body), 500)), nil
	}
	if !textual(ctype, body) {
		return Errorf("fetch %s: the body is binary (%s, %d bytes or more); fetch reads text only", u, orUnknown(ctype), len(body)), nil
	}
	text, err := convert(in.Format, ctype, body, u)
	if err != nil {
		return Errorf("fetch %s: %v", u, err), nil
	}
	head := fmt.Sprintf("%s (%s, %s)", resp.Request.URL, resp.Status, orUnknown(ctype))
	if cut {
		head += fmt.Sprintf(" — cut at %d bytes (max_bytes)", in.MaxBytes)
	}
	shown, saved, _ := shell.Truncate(head+"\n\n"+text, t.outputDir)
	if saved != "" {
		shown += "\n\nThe whole page is saved in " + saved + " (view or grep it)."
	}
	return Result{Content: shown}, nil
}

// textual reports whether a body is text: a text-like media type, or no
// type and bytes that sniff as text.
func textual(ctype string, body []byte) bool {
	switch {
	case strings.HasPrefix(ctype, "text/"), strings.HasSuffix(ctype, "+json"), strings.HasSuffix(ctype, "+xml"):
		return true
	case ctype == "application/json", ctype == "application/xml", ctype == "application/javascript",
		ctype == "application/xhtml+xml", ctype == "application/x-yaml", ctype == "application/yaml", ctype == "application/toml":
		return true
	case ctype == "" || ctype == "application/octet-stream":
		return strings.HasPrefix(http.DetectContentType(body), "text/") && !IsBinary(body)
	}
	return false
}

func orUnknown(s string) string {
	if s == "" {
		return "no content type"
	}
	return s
}

// convert renders a body in the asked format: markdown or text for HTML,
// the text itself otherwise.
func convert(format, ctype string, body []byte, base *url.URL) (string, error) {
	isHTML := ctype == "text/html" || ctype == "application/xhtml+xml" || (ctype == "" && bytes.Contains(bytes.ToLower(body[:min(len(body), 512)]), []byte("<html")))
	switch {
	case format == "raw" || !isHTML:
		return string(body), nil
	case format == "text":
		return htmlText(body)
	}
	md, err := htmltomarkdown.ConvertString(string(body), converter.WithDomain(base.Scheme+"://"+base.Host))
	if err != nil {
		return "", fmt.Errorf("turning the page into markdown: %w; try format text or raw", err)
	}
	return strings.TrimSpace(md), nil
}

// htmlText is the visible text of a page: scripts and styles dropped,
// block elements on their own lines.
func htmlText(body []byte) (string, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("reading the HTML: %w", err)
	}
	var b strings.Builder
	var walk func(n *html.Node, pre bool)
	walk = func(n *html.Node, pre bool) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "noscript", "template", "head":
				return
			case "pre":
				pre = true
				b.WriteString("\n")
			case "p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "blockquote", "dt", "dd":
				b.WriteString("\n")
			}
		}
		if n.Type == html.TextNode {
			if pre {
				b.WriteString(n.Data)
			} else {
				// Outside <pre>, any run of white space (a line break
				// in the source too) is one space.
				b.WriteString(collapseSpace(n.Data))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, pre)
		}
	}
	walk(doc, false)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n"), nil
}

// collapseSpace turns every run of white space in s into one space.
func collapseSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}
