package controller

import (
	"reflect"
	"strings"
	"testing"
)

// Two lines in the shape Karpenter v1.15.0 writes (zap JSON, queue.go StartCommand with
// Command.LogValues), around lines that are not commands.
const commandLog = `{"level":"INFO","time":"2026-11-30T05:01:02.000Z","logger":"controller","message":"found provisionable pod(s)","Pods":"default/p-0"}
{"level":"INFO","time":"2026-11-30T05:01:12.120Z","logger":"controller","message":"disrupting node(s)","controller":"disruption","command":"Underutilized/Replace(...)","decision":"replace","disrupted-node-count":1,"replacement-node-count":1,"pod-count":2,"disrupted-nodes":[{"Node":{"name":"node-b"},"NodeClaim":{"name":"claim-b"},"capacity-type":"on-demand","instance-type":"m5.large"}],"replacement-nodes":[{"capacity-type":"on-demand","instance-types":"c5.large"}]}
not json at all
{"level":"INFO","time":"2026-11-30T05:02:12.120Z","logger":"controller","message":"disrupting node(s)","decision":"delete","disrupted-node-count":2,"replacement-node-count":0,"pod-count":0,"disrupted-nodes":[{"Node":{"name":"node-z"}},{"Node":{"name":"node-a"}}],"replacement-nodes":[]}
`

func TestCommandsAreReadFromKarpentersLog(t *testing.T) {
	got, err := parseCommands(strings.NewReader(commandLog))
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{
		{Decision: "replace", Nodes: []string{"node-b"}, Replacements: 1},
		{Decision: "delete", Nodes: []string{"node-a", "node-z"}, Replacements: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
