package controller

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// Command: one disruption command as Karpenter logged it when its queue started it (queue.go
// StartCommand logs "disrupting node(s)" with Command.LogValues before it taints the candidates
// and creates the replacements). The log, not the launches the harness sees, says how many
// replacements a command has: a replacement launched more than a second after the mark looked like
// the provisioner's (the whole run of 2026-11-30, ctl-82-d: one replacement launched 1.4 s after
// the mark, recorded as a delete).
type Command struct {
	Decision     string
	Nodes        []string
	Replacements int
}

func (h *Harness) logPath() string { return filepath.Join(h.logDir, "karpenter.log") }

// LogSize: where Karpenter's log ends now (Commands reads from there).
func (h *Harness) LogSize() int64 {
	st, err := os.Stat(h.logPath())
	if err != nil {
		return 0
	}
	return st.Size()
}

// Commands: the commands Karpenter's log records from byte offset `from` on, in log order.
func (h *Harness) Commands(from int64) ([]Command, error) {
	f, err := os.Open(h.logPath())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, err
	}
	return parseCommands(f)
}

func parseCommands(r io.Reader) ([]Command, error) {
	var out []Command
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for sc.Scan() {
		var line struct {
			Message      string `json:"message"`
			Decision     string `json:"decision"`
			Replacements *int   `json:"replacement-node-count"`
			Disrupted    []struct {
				Node struct {
					Name string `json:"name"`
				} `json:"Node"`
			} `json:"disrupted-nodes"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Message != "disrupting node(s)" || line.Replacements == nil {
			continue
		}
		c := Command{Decision: line.Decision, Replacements: *line.Replacements}
		for _, d := range line.Disrupted {
			c.Nodes = append(c.Nodes, d.Node.Name)
		}
		sort.Strings(c.Nodes)
		out = append(out, c)
	}
	return out, sc.Err()
}
