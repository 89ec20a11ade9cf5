package config

import (
	"fmt"
	"sort"

	"cockpit/engine/safety"
	"cockpit/live"
)

// ValidateRoots rejects any configured file root, run root or workspace that overlaps the
// runtime root's own state (contains it, like "~", or lies inside it outside the agent areas
// uploads, imports and runs), naming both paths: agent tools never reach cockpit's files.
func (c Config) ValidateRoots(root live.Root) error {
	paths := safety.DefaultPaths(root.Dir())
	paths.Cwd = root.Dir() // the file tools resolve relative roots against the runtime root
	prot := safety.ProtectRuntime(paths, root.Dir())
	check := func(key string, list []string) error {
		for _, r := range list {
			res, err := paths.ResolveUser(r)
			if err != nil {
				return fmt.Errorf("config: %s = %q: %v", key, r, err)
			}
			if p, ok := prot.Overlaps(res); ok {
				return fmt.Errorf("config: %s = %q (%s) overlaps the runtime root %s (at %s): agent tools may never reach cockpit's own state; use a directory outside it, or its uploads, imports or runs", key, r, res, root.Dir(), p)
			}
		}
		return nil
	}
	f := c.Tools.Files
	for _, k := range []struct {
		key  string
		list []string
	}{{"tools.files.read_roots", f.ReadRoots}, {"tools.files.write_roots", f.WriteRoots}, {"tools.files.run_roots", f.RunRoots}} {
		if err := check(k.key, k.list); err != nil {
			return err
		}
	}
	layers := map[string]Layer{"policy.global": c.Policy.Global}
	for prefix, m := range map[string]map[string]Layer{"policy.profiles.": c.Policy.Profiles, "policy.agents.": c.Policy.Agents,
		"policy.groups.": c.Policy.Groups, "policy.tools.": c.Policy.Tools} {
		for name, l := range m {
			layers[prefix+name] = l
		}
	}
	names := make([]string, 0, len(layers))
	for n := range layers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if w := layers[n].WorkspaceRestrictions; w != nil {
			if err := check(n+".workspace_restrictions", *w); err != nil {
				return err
			}
		}
	}
	return nil
}
