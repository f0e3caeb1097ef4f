package normalize

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// errJSONShape says decodeJSON met something it leaves to encoding/json.
var errJSONShape = errors.New("not plain JSON")

// decodeJSON decodes one JSON value as json.Decoder with UseNumber decodes
// it into an any (maps, slices, strings, json.Number, bools, nil), for the
// compact JSON json.Marshal writes. It fails, leaving the work to
// encoding/json, on anything else: surrogate escapes, invalid UTF-8,
// malformed input, text after the value.
func decodeJSON(data []byte) (any, error) {
	d := jsonDecoder{data: data}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i != len(d.data) {
		return nil, errJSONShape
	}
	return v, nil
}

type jsonDecoder struct {
	data []byte
	i    int
}

func (d *jsonDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value() (any, error) {
	d.space()
	if d.i >= len(d.data) {
		return nil, errJSONShape
	}
	switch c := d.data[d.i]; {
	case c == '{':
		d.i++
		m := map[string]any{}
		d.space()
		if d.i < len(d.data) && d.data[d.i] == '}' {
			d.i++
			return m, nil
		}
		for {
			d.space()
			if d.i >= len(d.data) || d.data[d.i] != '"' {
				return nil, errJSONShape
			}
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			d.space()
			if d.i >= len(d.data) || d.data[d.i] != ':' {
				return nil, errJSONShape
			}
			d.i++
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			m[k] = v
			d.space()
			if d.i >= len(d.data) {
				return nil, errJSONShape
			}
			switch d.data[d.i] {
			case ',':
				d.i++
			case '}':
				d.i++
				return m, nil
			default:
				return nil, errJSONShape
			}
		}
	case c == '[':
		d.i++
		a := []any{}
		d.space()
		if d.i < len(d.data) && d.data[d.i] == ']' {
			d.i++
			return a, nil
		}
		for {
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			d.space()
			if d.i >= len(d.data) {
				return nil, errJSONShape
			}
			switch d.data[d.i] {
			case ',':
				d.i++
			case ']':
				d.i++
				return a, nil
			default:
				return nil, errJSONShape
			}
		}
	case c == '"':
		return d.str()
	case c == 't':
		return d.word("true", true)
	case c == 'f':
		return d.word("false", false)
	case c == 'n':
		return d.word("null", nil)
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return nil, errJSONShape
}

func (d *jsonDecoder) word(w string, v any) (any, error) {
	if len(d.data)-d.i < len(w) || string(d.data[d.i:d.i+len(w)]) != w {
		return nil, errJSONShape
	}
	d.i += len(w)
	return v, nil
}

// number reads a number as the JSON grammar writes it.
func (d *jsonDecoder) number() (any, error) {
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.data) && '0' <= d.data[d.i] && d.data[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.data[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.data) && d.data[d.i] == '0':
		d.i++
	case digits() == 0:
		return nil, errJSONShape
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, errJSONShape
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, errJSONShape
		}
	}
	return json.Number(d.data[start:d.i]), nil
}

// str reads a string at the opening quote.
func (d *jsonDecoder) str() (string, error) {
	d.i++
	start := d.i
	// The common case: no escapes, so the string is the bytes as they are.
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			s := d.data[start:d.i]
			if !utf8.Valid(s) {
				return "", errJSONShape
			}
			d.i++
			return string(s), nil
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", errJSONShape
		}
		d.i++
	}
	return "", errJSONShape
}

// escaped reads the rest of a string that holds escapes.
func (d *jsonDecoder) escaped(start int) (string, error) {
	buf := append([]byte(nil), d.data[start:d.i]...)
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				return "", errJSONShape
			}
			d.i++
			return string(buf), nil
		case c < 0x20:
			return "", errJSONShape
		case c != '\\':
			buf = append(buf, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.data) {
			return "", errJSONShape
		}
		switch e := d.data[d.i+1]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			if d.i+6 > len(d.data) {
				return "", errJSONShape
			}
			r, err := strconv.ParseUint(string(d.data[d.i+2:d.i+6]), 16, 32)
			if err != nil || 0xD800 <= r && r <= 0xDFFF {
				return "", errJSONShape // surrogates: encoding/json decides
			}
			buf = utf8.AppendRune(buf, rune(r))
			d.i += 4
		default:
			return "", errJSONShape
		}
		d.i += 2
	}
	return "", errJSONShape
}
