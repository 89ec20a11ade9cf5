// Package themes defines semantic colour tokens and the named presets built from them.
package themes
