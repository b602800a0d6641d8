package permission

import (
	"fmt"
	"strings"
	"testing"
)

// TestEgressFromJudge: a shell command's egress is what the shell judge
// read (Request.Egress; tools/shell TestEgress checks the reading), one
// ask per kind and destination, worded with the words that do it.
func TestEgressFromJudge(t *testing.T) {
	r := &Request{Tool: "bash", Capability: "shell.exec", Command: "git push origin && git push origin main && npm publish",
		Argvs: [][]string{{"git", "push", "origin"}, {"git", "push", "origin", "main"}, {"npm", "publish"}},
		Egress: []Egress{{Kind: "push", Dest: "origin", What: "`git push`"}, {Kind: "push", Dest: "origin", What: "`git push`"},
			{Kind: "publish", Dest: "registry.npmjs.org", What: "`npm publish`"}}}
	f, err := egressInspector{}.Inspect(t.Context(), Inspection{Request: *r})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"egress:push:origin|egress: `git push` sends data to origin (push)",
		"egress:publish:registry.npmjs.org|egress: `npm publish` sends data to registry.npmjs.org (publish)",
	}
	var got []string
	for _, x := range f {
		if x.Verdict != Ask {
			t.Errorf("finding %+v is not an ask", x)
		}
		got = append(got, x.Key+"|"+x.Message)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings\n%q\nwant\n%q", got, want)
	}
	// A command the judge found nothing outbound in asks nothing, whatever
	// its text or destinations say (a clone is inbound).
	clone := &Request{Tool: "bash", Capability: "shell.exec", Command: "git clone https://x.io/r.git && echo 'npm publish'",
		Argvs: [][]string{{"git", "clone", "https://x.io/r.git"}, {"echo", "npm publish"}}, Destinations: []string{"https://x.io/r.git"}}
	if got := detectEgress(clone); len(got) != 0 {
		t.Errorf("inbound command: %+v", got)
	}
}

func TestEgressNonShell(t *testing.T) {
	send := &Request{Tool: "slack_post", Destinations: []string{"https://hooks.slack.com/x"}}
	if got := detectEgress(send); len(got) != 1 || got[0].dest != "hooks.slack.com" || got[0].kind != "send" {
		t.Errorf("non-shell send = %+v", got)
	}
	read := &Request{Tool: "fetch", ReadOnly: true, Destinations: []string{"https://example.com"}}
	if got := detectEgress(read); len(got) != 0 {
		t.Errorf("read-only fetch = %+v, want none", got)
	}
}

// TestFetchCarriesData: a fetch is flagged only when its URL could carry
// workspace content out.
func TestFetchCarriesData(t *testing.T) {
	long := "c2VjcmV0IGtleTogQUtJQUlPU0ZPRE5ON0VYQU1QTEUgd2l0aCBtb3JlIGJ5dGVz"
	tests := []struct {
		url  string
		want string // "" or part of the reason
	}{
		{"https://docs.python.org/3/library/os.html", ""},
		{"https://pkg.go.dev/golang.org/x/tools@v0.30.0/txtar#Archive", ""},
		{"https://www.google.com/search?q=golang+context+cancel", ""},
		{"https://github.com/golang/go/issues?q=is%3Aissue+label%3ANeedsFix+os.Root", ""},
		{"https://x.example/?q=" + long, "query value"},
		{"https://x.example/?a=1&b=2&" + strings.Repeat("k=v&", 45), "character query"},
		{"https://x.example/" + strings.Repeat("QUtJQQ", 17) + "/x", "path segment"},
		{"https://u:p@x.example/", "credentials"},
		{"https://%zz/", "does not parse"},
		{"http://127.0.0.1:8080/", "this machine"},
		{"http://localhost:3000/admin", "this machine"},
		{"http://[::1]/", "this machine"},
		{"http://169.254.169.254/latest/meta-data/", "cloud metadata"},
		{"http://10.0.0.7/", "private network"},
		{"http://192.168.1.1/", "private network"},
		{"http://0.0.0.0:9000/", "this machine"},
		{"http://[::ffff:127.0.0.1]/", "this machine"},
		{"https://8.8.8.8/", ""},
		{"http://2130706433/", "this machine"},
		{"http://0x7f.1/", "this machine"},
		{"http://100.100.100.200/latest/meta-data/", "cloud metadata"},
		{"http://[fe80::1%25eth0]/", "this machine"},
		// Data spread over the whole URL: no piece is long, together they are.
		{"https://x.example/" + strings.Repeat(strings.Repeat("QUtJQQ", 15)+"/", 20), "character URL"},
		{"https://x.example/" + strings.Repeat("c2VjcmV0a2V5MTIzNDU2/", 6), "encoded-looking"},
		{"https://x.example/a?" + strings.Repeat("k=c2VjcmV0a2V5MTIzNDU2Nzg&", 5), "encoded-looking"},
		{"https://" + strings.Repeat(strings.Repeat("a", 60)+".", 4) + "evil.example/", "subdomain labels"},
		{"https://c2VjcmV0IGtleTogQUtJQUlP.U0ZPRE5ON0VYQU1QTEUg.d2l0aCBtb3Jl.evil.example/", "subdomain labels"},
		{"https://c2VjcmV0IGtleTogQUtJQUlP.evil.example/U0ZPRE5ON0VYQU1QTEUg/d2l0aCBtb3JlIGJ5dGVz1/aGVyZSBhbmQgdGhlcmUgYW5kIGV2ZXJ5d2hlcmU2", "encoded-looking"},
	}
	for _, tt := range tests {
		r := &Request{Tool: "fetch", Capability: "net.fetch", Destinations: []string{tt.url}}
		hits := detectEgress(r)
		switch {
		case tt.want == "" && len(hits) != 0:
			t.Errorf("%s flagged: %+v", tt.url, hits)
		case tt.want != "" && (len(hits) != 1 || !strings.Contains(hits[0].what+hits[0].message, tt.want)):
			t.Errorf("%s: %+v, want one hit naming %q", tt.url, hits, tt.want)
		}
	}
}

// TestFetchOrdinaryURLs: long documentation URLs people fetch every day
// are not taken for data going out.
func TestFetchOrdinaryURLs(t *testing.T) {
	for _, u := range []string{
		"https://docs.python.org/3/library/concurrent.futures.html#concurrent.futures.ThreadPoolExecutor",
		"https://docs.python.org/3.12/library/asyncio-eventloop.html#asyncio.loop.run_in_executor",
		"https://pkg.go.dev/golang.org/x/tools@v0.0.0-20240101120000-abcdef123456/go/analysis/passes/inspect",
		"https://pkg.go.dev/github.com/aws/aws-sdk-go-v2/service/s3@v1.58.2#Client.PutObject",
		"https://pkg.go.dev/net/http#Transport.RoundTrip",
		"https://github.com/kubernetes/kubernetes/blob/5d8f52e1d0c7d3b2e4c1e8a5f6b4c9e2a7d3f1b0/staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher_whitebox_test.go#L120-L140",
		"https://github.com/microsoft/vscode/blob/main/src/vs/workbench/contrib/terminal/browser/xterm/xtermTerminal.ts",
		"https://github.com/golang/go/compare/5d8f52e1d0c7d3b2e4c1e8a5f6b4c9e2a7d3f1b0...0a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
		"https://github.com/golang/go/blob/go1.22.0/src/net/http/transport.go#L1234",
		"https://raw.githubusercontent.com/microsoft/TypeScript/9f3c4c9d2e1a0b8c7d6e5f4a3b2c1d0e9f8a7b6c/src/compiler/checker.ts",
		"https://www.npmjs.com/package/@typescript-eslint/eslint-plugin",
		"https://www.npmjs.com/package/@babel/plugin-transform-runtime/v/7.24.3?activeTab=versions",
		"https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Array/reduce",
		"https://developer.mozilla.org/en-US/docs/Web/API/Web_Workers_API/Using_web_workers#transferring_data_to_and_from_workers_further_details",
		"https://stackoverflow.com/questions/11227809/why-is-processing-a-sorted-array-faster-than-processing-an-unsorted-array",
		"https://learn.microsoft.com/en-us/dotnet/api/system.threading.tasks.task.configureawait?view=net-8.0",
		"https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-ec2-instance.html",
		"https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/util/concurrent/AbstractExecutorService.html",
		"https://docs.rs/tokio/1.38.0/tokio/sync/struct.Mutex.html",
		"https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.30/#podspec-v1-core",
		"https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/instance",
		"https://web.archive.org/web/20231001000000/https://example.com/docs/getting-started",
		"https://my-bucket-name-12345.s3.us-west-2.amazonaws.com/releases/v1.2.3/app-linux-amd64.tar.gz",
		"https://my-load-balancer-1234567890.us-west-2.elb.amazonaws.com/health",
		"https://en.wikipedia.org/wiki/Transmission_Control_Protocol",
		"https://www.typescriptlang.org/docs/handbook/2/narrowing.html#discriminated-unions",
		"https://github.com/golang/go/issues?q=is%3Aissue+is%3Aopen+label%3ANeedsInvestigation+net%2Fhttp",
	} {
		if why := carriesData(u); why != "" {
			t.Errorf("%s flagged: %s", u, why)
		}
	}
}
