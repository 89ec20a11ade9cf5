package config

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"cockpit/live"
)

// BrokerKinds lists the kinds `cockpit init --broker` has a template for.
func BrokerKinds() []string {
	kinds := make([]string, 0, len(brokerSections))
	for k := range brokerSections {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

// TemplateFor is the config template selecting a broker kind: cockpit.broker names it and
// its commented [brokers.<kind>] section is appended.
func TemplateFor(kind string) (string, error) {
	section, ok := BrokerSection(kind)
	if !ok {
		return "", fmt.Errorf("no template for broker %q", kind)
	}
	const paperLine = `broker = "paper"       # "paper" is the embedded paper broker`
	if !strings.Contains(Template, paperLine) {
		return "", fmt.Errorf("the config template has no cockpit.broker line")
	}
	t := strings.Replace(Template, paperLine, fmt.Sprintf(`broker = %q      # a [brokers.%s] table below; "paper" is the embedded paper broker`, kind, kind), 1)
	return t + section, nil
}

// BrokerTemplateResult says what AddBrokerTemplate did.
type BrokerTemplateResult int

// What AddBrokerTemplate did.
const (
	BrokerTemplatePresent BrokerTemplateResult = iota // the file already has the table
	BrokerTemplateWritten                             // a new file selecting the broker
	BrokerTemplateAdded                               // the table appended to an existing file
)

// AddBrokerTemplate writes TemplateFor(kind) when root has no config.toml, or appends the
// kind's commented table to the existing file unless it already has one.
func AddBrokerTemplate(root live.Root, kind string) (BrokerTemplateResult, error) {
	text, err := TemplateFor(kind)
	if err != nil {
		return BrokerTemplatePresent, err
	}
	path := Path(root)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if strings.Contains("\n"+string(data), "\n[brokers."+kind+"]") {
			return BrokerTemplatePresent, nil
		}
		section, _ := BrokerSection(kind)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return BrokerTemplatePresent, err
		}
		defer f.Close()
		if _, err := f.WriteString(section); err != nil {
			return BrokerTemplatePresent, err
		}
		return BrokerTemplateAdded, f.Close()
	case !os.IsNotExist(err):
		return BrokerTemplatePresent, err
	}
	if err := os.MkdirAll(root.Dir(), 0o700); err != nil {
		return BrokerTemplatePresent, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return BrokerTemplatePresent, err
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		return BrokerTemplatePresent, err
	}
	return BrokerTemplateWritten, f.Close()
}
