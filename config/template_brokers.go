package config

import (
	"fmt"
	"os"
	"strings"

	"cockpit/live"
)

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

// WriteBrokerTemplate writes TemplateFor(kind) unless a config file exists; it reports
// whether it wrote one.
func WriteBrokerTemplate(root live.Root, kind string) (bool, error) {
	text, err := TemplateFor(kind)
	if err != nil {
		return false, err
	}
	path := Path(root)
	if _, err := os.Stat(path); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(root.Dir(), 0o700); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.WriteString(text)
	return err == nil, err
}
