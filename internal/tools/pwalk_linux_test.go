package tools

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

// TestWalkParallelClosesFolders: a walk that ends early (stopped by its
// visit, cut by after, cancelled) closes every folder it opened.
func TestWalkParallelClosesFolders(t *testing.T) {
	ws, root := newTestWS(t, nil)
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("a%d/b%d/c%d.txt", i%7, i%13, i)] = "x\n"
	}
	writeFiles(t, root, files)
	// The workspace folder's own root stays open: open it first.
	if _, err := ws.statDisk(root); err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	ctx, cancel := context.WithCancel(context.Background())
	visits := []walkVisit{
		{file: func(int, walkFile) walkAction { return walkStop }},
		{file: func(int, walkFile) walkAction { return walkContinue }, after: func(key string) bool { return key > "a3" }},
		{file: func(int, walkFile) walkAction { cancel(); return walkContinue }},
		{file: func(int, walkFile) walkAction { return walkContinue }},
	}
	for i, v := range visits {
		if i == 3 {
			ctx = context.Background()
		}
		_, err := ws.walkParallel(ctx, root, v)
		if (err != nil) != (i == 2) {
			t.Errorf("walk %d: error %v", i, err)
		}
		if n := openFDs(t); n != before {
			t.Errorf("walk %d left %d descriptors open", i, n-before)
		}
	}
}
