package tools

// heapOf is a container/heap of items ordered by less (the top sorts
// first): the parallel walk's queue and glob's newest files.
type heapOf[T any] struct {
	items []T
	less  func(a, b T) bool
}

func (h *heapOf[T]) Len() int           { return len(h.items) }
func (h *heapOf[T]) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *heapOf[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *heapOf[T]) Push(x any)         { h.items = append(h.items, x.(T)) }

func (h *heapOf[T]) Pop() any {
	last := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return last
}
