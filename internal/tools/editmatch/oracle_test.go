package editmatch

import "strings"

// The generators decide with these, independently of the matcher, what a
// quoted old_string can mean: where in the file it matches ignoring
// whitespace, by the documented rules.

// oracleKey is a line compared ignoring whitespace: its words.
func oracleKey(s string) string { return strings.Join(strings.Fields(s), " ") }

// oracleLines splits text into lines as the matcher sees them: LF, and a
// final line break ends the last line rather than starting another.
func oracleLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// oracleMatches returns where old matches content ignoring whitespace, as
// the 0-based file line of old's first non-blank line: strict (blank lines
// at old's ends one for one, a blank run inside matching any run of one or
// more), and loose (blank lines ignored inside; at the ends, as many as
// the file has there).
func oracleMatches(content, old string) (strict, loose []int) {
	file := oracleLines(strings.TrimPrefix(content, bom))
	keys := make([]string, 0)
	for _, l := range oracleLines(strings.TrimPrefix(old, bom)) {
		keys = append(keys, oracleKey(l))
	}
	lead, trail := 0, 0
	for lead < len(keys) && keys[lead] == "" {
		lead++
	}
	if lead == len(keys) {
		return nil, nil
	}
	for keys[len(keys)-1-trail] == "" {
		trail++
	}
	fileKeys := make([]string, len(file))
	for j, l := range file {
		fileKeys[j] = oracleKey(l)
	}
	for s := range file {
		if fileKeys[s] != keys[lead] {
			continue
		}
		if s >= lead && strictAt(fileKeys, keys, s-lead, lead, trail) {
			strict = append(strict, s)
		}
		if looseAt(fileKeys, keys[lead:len(keys)-trail], s) {
			loose = append(loose, s)
		}
	}
	return strict, loose
}

// strictAt matches keys from file line s on, by the strict rule.
func strictAt(file, keys []string, s, lead, trail int) bool {
	j := s
	for i := 0; i < len(keys); {
		switch {
		case j >= len(file):
			return false
		case keys[i] != "" || i < lead || i >= len(keys)-trail:
			if file[j] != keys[i] {
				return false
			}
			i++
			j++
		default:
			for keys[i] == "" {
				i++
			}
			if file[j] != "" {
				return false
			}
			for j < len(file) && file[j] == "" {
				j++
			}
		}
	}
	return true
}

// looseAt matches the non-blank keys from file line s on, skipping blank
// lines of both.
func looseAt(file, keys []string, s int) bool {
	j := s
	for i, k := range keys {
		if k == "" {
			continue
		}
		for i > 0 && j < len(file) && file[j] == "" {
			j++
		}
		if j >= len(file) || file[j] != k {
			return false
		}
		j++
	}
	return true
}
