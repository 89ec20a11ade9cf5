package termsafe

import (
	"unicode/utf16"
	"unicode/utf8"
)

// JSON returns an encoded JSON document with every character Text would escape written as a
// JSON escape (\u00XX, or a surrogate pair beyond U+FFFF). Encoders escape the C0 controls
// but leave DEL, C1 controls (U+009B is a CSI to many terminals), format characters and
// separators raw inside strings; after JSON the document decodes to the same values and prints
// as it says. Line feeds and tabs are kept (indentation; an encoder has escaped those inside
// strings); a byte that is not UTF-8 becomes \ufffd, as encoders write it. b itself is
// returned when nothing needs escaping.
func JSON(b []byte) []byte {
	if onlyLayout(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				out = appendU(out, rune(c))
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case !hidden(r, size):
			out = append(out, b[i:i+size]...)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			out = appendU(appendU(out, r1), r2)
		default:
			out = appendU(out, r)
		}
		i += size
	}
	return out
}

// onlyLayout reports a document whose only characters Text would escape are line feeds and
// tabs (an indented document): JSON keeps it as it is.
func onlyLayout(b []byte) bool {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if hidden(r, size) {
			return false
		}
		i += size
	}
	return true
}

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
