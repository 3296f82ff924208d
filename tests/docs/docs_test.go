// Package docs checks the repository's own text: every document and
// source file must stand on its own, so none may cite a file that lives
// outside the repository (a contract or demo document kept elsewhere).
// The contract is docs/CONTRACT.md; the ABI is abi/ABI.md.
package docs

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// root is the repository root, seen from tests/docs.
const root = "../.."

// outsideCitations are the ways a file outside the repository has been
// cited. Each is written so that this file does not match itself.
var outsideCitations = []*regexp.Regexp{
	regexp.MustCompile(`\bS[P]EC\b`),                         // the old contract document, by name or "section N" of it
	regexp.MustCompile(`\bD[E]MO\.md\b`),                     // the old demo document
	regexp.MustCompile(`\.\.[/]shared\b`),                    // the folder beside the repository
	regexp.MustCompile(`(?:^|[^\w./-])shared[/][\w-]+\.\w+`), // a file of that folder
}

// skipDirs are never part of the repository's own text when the tree is
// walked (without git).
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".venv": true, "target": true, "bin": true}

// repoFiles lists the files of the repository: tracked and new ones, as git
// sees them, or else every file of the tree outside skipDirs.
func repoFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, filepath.FromSlash(f))
			}
		}
		return files
	}
	t.Logf("git ls-files failed (%v); walking the tree", err)
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestDocs_NoCitationOutsideRepository fails on any citation of a file
// outside the repository, listing each with its file and line: cite
// docs/CONTRACT.md (by section name) instead.
func TestDocs_NoCitationOutsideRepository(t *testing.T) {
	files := repoFiles(t)
	if len(files) < 50 {
		t.Fatalf("found only %d files; is %s the repository root?", len(files), root)
	}
	var found []string
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree
			}
			t.Fatal(err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			continue // binary
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, re := range outsideCitations {
				if re.MatchString(line) {
					found = append(found, filepath.ToSlash(f)+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
					break
				}
			}
		}
	}
	if len(found) > 0 {
		t.Errorf("%d citations of files outside the repository; cite docs/CONTRACT.md (by section name) instead:\n%s",
			len(found), strings.Join(found, "\n"))
	}
}
