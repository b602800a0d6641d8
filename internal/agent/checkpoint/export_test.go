package checkpoint

// WalkOnly makes e walk the tree at every refresh, as on a system without
// a watcher.
func WalkOnly(e *Engine) { e.walkOnly = true }
