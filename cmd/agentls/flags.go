package main

import (
	"errors"
	"flag"
)

// flagExit is the exit code of a command whose flags did not parse: 0
// for --help (the flag set printed the usage), 2 for bad usage (it
// printed what was wrong).
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// parseInterleaved parses flags wherever they stand among the words, so
// "export ID --replay" reads like "--replay export ID", and returns the
// words.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return words, nil
		}
		words = append(words, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
