package hooks

// DefaultStopContinuations is how many times Stop hooks may keep one turn
// going when the configuration does not say.
const DefaultStopContinuations = 8

// StopLimit counts the continuations Stop hooks forced in one turn, so a
// hook that always denies cannot keep the model working forever. Make one
// per turn; it is not for concurrent use (a turn's steps are sequential).
type StopLimit struct {
	limit, used int
}

// NewStopLimit allows limit continuations; limit <= 0 means
// DefaultStopContinuations.
func NewStopLimit(limit int) *StopLimit {
	if limit <= 0 {
		limit = DefaultStopContinuations
	}
	return &StopLimit{limit: limit}
}

// Continue records that Stop hooks denied the end of the turn and reports
// whether the turn may go on. False means the limit is spent: end the
// turn anyway and tell the user the hooks were overridden.
func (l *StopLimit) Continue() bool {
	if l.used >= l.limit {
		return false
	}
	l.used++
	return true
}

// Used is the number of continuations granted so far.
func (l *StopLimit) Used() int { return l.used }

// Max is the number of continuations allowed.
func (l *StopLimit) Max() int { return l.limit }
