package main

import "testing"

func TestReplaceModules(t *testing.T) {
	mods := "## The module: TinyGo build\n\nnew\n\n## First result of a fresh process\n\nnew first\n\n"
	for _, c := range []struct{ name, md, want string }{
		{"sections after it kept",
			"# B\n\n## The module: TinyGo build\n\nold\n\n## First result of a fresh process\n\nold first\n\n## Healing\n\nheal\n",
			"# B\n\n" + "## The module: TinyGo build\n\nnew\n\n## First result of a fresh process\n\nnew first\n" + "\n## Healing\n\nheal\n"},
		{"last in the file",
			"# B\n\n## The module: TinyGo build\n\nold\n\n## First result of a fresh process\n\nold first\n",
			"# B\n\n" + "## The module: TinyGo build\n\nnew\n\n## First result of a fresh process\n\nnew first\n"},
		{"none yet",
			"# B\n\n## Other\n\nx\n",
			"# B\n\n## Other\n\nx\n\n" + "## The module: TinyGo build\n\nnew\n\n## First result of a fresh process\n\nnew first\n"},
	} {
		if got := replaceModules(c.md, mods); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
