package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// errHelp means a command printed its help because -h or --help asked: exit status 0.
var errHelp = errors.New("help requested")

// parseFlags parses args into fs. -h or --help prints the command's help (before, the flags,
// after) on stdout and returns errHelp; a bad flag or a stray argument prints the problem and
// the help on stderr and returns errUsage.
func parseFlags(fs *flag.FlagSet, before, after string, args []string, stdout, stderr io.Writer) error {
	fs.SetOutput(io.Discard) // the flag package would print usage on its own; this does
	fs.Usage = func() {}
	err := fs.Parse(args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		printHelp(stdout, fs, before, after)
		return errHelp
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n\n", fs.Name(), err)
		printHelp(stderr, fs, before, after)
		return errUsage
	}
	return nil
}

func printHelp(w io.Writer, fs *flag.FlagSet, before, after string) {
	fmt.Fprint(w, before)
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	fmt.Fprint(w, after)
}

// describe renders an error for the command line: a validation error as "what: rule" per
// field, named as the user gave it (labels maps chat's field names to flags or variables), a
// refusal by its message, and an unexpected error by its cause, never chat's Go values.
func describe(err error, labels map[string]string) string {
	var ce *chat.Error
	if !errors.As(err, &ce) {
		return err.Error()
	}
	if ce.Code == chat.CodeException || ce.Code == chat.CodeServiceUnavailable {
		if ce.Err != nil {
			return ce.Err.Error() // the operator needs the cause; a client would not see it
		}
		return ce.Message
	}
	if len(ce.Details) == 0 {
		return ce.Message
	}
	fields := make([]string, 0, len(ce.Details))
	for f := range ce.Details {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	var parts []string
	for _, f := range fields {
		label, ok := labels[f]
		if !ok {
			label = f
		}
		for _, m := range ce.Details[f] {
			if label == "" {
				parts = append(parts, m)
			} else {
				parts = append(parts, label+": "+m)
			}
		}
	}
	if len(parts) > 1 {
		for i := range parts {
			parts[i] = strings.TrimSuffix(parts[i], ".") // joined by "; "
		}
	}
	return strings.Join(parts, "; ")
}

// keysNote says, wherever keys are printed, that they cannot be shown again and how to make
// another. database is the --database given, "" when it is the default.
func keysNote(appID, database string) string {
	if database != "" {
		database = " --database '" + redactURL(database) + "'"
	}
	return fmt.Sprintf(`Keys are shown only now: natter stores only their SHA-256 hashes. To make another:
  natter apps keys create --app %s --scope fullAccess%s
or POST /v3/apikeys with a fullAccess key.
`, appID, database)
}

// redactURL hides a password in a database URL.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}
