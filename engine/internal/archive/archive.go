// Package archive unpacks a k6 archive (`k6 archive` makes one: a tar holding metadata.json, the main script as
// "data", and every local module and opened file under "file/" at its absolute path on the machine that made it)
// into a folder, so a team's archive runs on the engine as its files laid out as they were.
package archive

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits on what an archive may unpack to: its files are the user's.
const (
	maxFiles      = 10_000
	maxTotalBytes = 256 << 20
)

type metadata struct {
	Filename string          `json:"filename"`
	Options  json.RawMessage `json:"options"`
}

// Unpacked is an archive laid out in a folder.
type Unpacked struct {
	// Entry is the main script's path in the folder, Root the folder.
	Entry, Root string
}

// Is tells a k6 archive from a script by its name, as k6 run does.
func Is(name string) bool { return strings.HasSuffix(name, ".tar") }

// Unpack writes the archive's files under dest (which it creates) and returns where its main script is.
func Unpack(tarPath, dest string) (*Unpacked, error) {
	f, err := os.Open(tarPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, err
	}
	var meta *metadata
	var data []byte
	files, total := 0, int64(0)
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s is not a k6 archive (a tar): %v", filepath.Base(tarPath), err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if files++; files > maxFiles {
			return nil, fmt.Errorf("the archive holds more than %d files", maxFiles)
		}
		if total += h.Size; total > maxTotalBytes {
			return nil, fmt.Errorf("the archive unpacks to more than %d MiB", maxTotalBytes>>20)
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		switch {
		case name == "metadata.json":
			meta = &metadata{}
			if err := json.NewDecoder(io.LimitReader(tr, 16<<20)).Decode(meta); err != nil {
				return nil, fmt.Errorf("the archive's metadata.json is not JSON: %v", err)
			}
		case name == "data":
			if data, err = io.ReadAll(tr); err != nil {
				return nil, err
			}
		case strings.HasPrefix(name, "file/"):
			if err := write(dest, strings.TrimPrefix(name, "file/"), tr); err != nil {
				return nil, err
			}
		case strings.HasPrefix(name, "https/") || strings.HasPrefix(name, "http/"):
			return nil, fmt.Errorf("the archive holds a remote module (%s): opsbench-engine runs local files only", name)
		}
	}
	if meta == nil || data == nil {
		return nil, fmt.Errorf("%s is not a k6 archive: no metadata.json and data in it", filepath.Base(tarPath))
	}
	entry, err := localPath(meta.Filename)
	if err != nil {
		return nil, err
	}
	if err := write(dest, entry, strings.NewReader(string(data))); err != nil {
		return nil, err
	}
	return &Unpacked{Entry: filepath.Join(dest, filepath.FromSlash(entry)), Root: dest}, nil
}

// localPath turns metadata's "file:///home/u/p/test.js" into "home/u/p/test.js".
func localPath(filename string) (string, error) {
	p := filename
	if strings.HasPrefix(p, "file://") {
		u, err := url.Parse(p)
		if err != nil {
			return "", fmt.Errorf("the archive's main script %q: %v", filename, err)
		}
		p = u.Path
	} else if strings.Contains(p, "://") {
		return "", fmt.Errorf("the archive's main script %q is not a local file", filename)
	}
	if p == "" {
		return "", errors.New("the archive's metadata.json names no main script (filename)")
	}
	return strings.TrimPrefix(path.Clean("/"+p), "/"), nil
}

// write puts one file at rel (slash-separated, made relative) under dest, never outside it.
func write(dest, rel string, r io.Reader) error {
	clean := strings.TrimPrefix(path.Clean("/"+rel), "/")
	if clean == "" || strings.HasPrefix(clean, "..") {
		return fmt.Errorf("the archive holds a file outside its folder: %q", rel)
	}
	p := filepath.Join(dest, filepath.FromSlash(clean))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
