package agent

import "fmt"

// Price is what a model charges, in US dollars per million tokens, so a
// session can say what its tokens cost. Input is a prompt token the
// provider neither read from nor wrote to its prompt cache; CachedInput
// one read from it; CacheWrite one written to it (Anthropic bills writes
// above the input price; OpenAI reports none); Output an answer token,
// reasoning included.
type Price struct {
	Input, CachedInput, CacheWrite, Output float64
}

// Cost is what u costs at p, in US dollars.
func (p Price) Cost(u Usage) float64 {
	fresh := max(u.Input-u.CacheRead-u.CacheWrite, 0)
	return (float64(fresh)*p.Input + float64(u.CacheRead)*p.CachedInput +
		float64(u.CacheWrite)*p.CacheWrite + float64(u.Output)*p.Output) / 1e6
}

// Priced returns u with its cost at p. A usage without tokens stays
// without a cost (it adds nothing), and one whose cost is already known
// (a provider that reports what it billed) keeps it.
func (p Price) Priced(u Usage) Usage {
	if u.Cost != nil || !u.hasTokens() {
		return u
	}
	c := p.Cost(u)
	u.Cost = &c
	return u
}

// FormatCost writes an amount in US dollars as people read costs: cents
// for a dollar and more, finer below, so a cheap step does not show as
// $0.00.
func FormatCost(usd float64) string {
	switch {
	case usd >= 1:
		return fmt.Sprintf("$%.2f", usd)
	case usd >= 0.01:
		return fmt.Sprintf("$%.3f", usd)
	case usd == 0:
		return "$0"
	case usd < 0.0001:
		return "<$0.0001"
	}
	return fmt.Sprintf("$%.4f", usd)
}
