package audit

import "time"

// appendTime appends t in TimeFormat, as t.UTC().AppendFormat(dst,
// TimeFormat) does, without reading the layout: formatting the timestamp
// was a third of a Write's CPU time. Years outside 0-9999, which the
// layout writes in more or fewer digits, go through AppendFormat.
func appendTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, TimeFormat)
	}
	hour, minute, sec := t.Clock()
	dst = appendDigits(dst, year, 4)
	dst = append(dst, '-')
	dst = appendDigits(dst, int(month), 2)
	dst = append(dst, '-')
	dst = appendDigits(dst, day, 2)
	dst = append(dst, 'T')
	dst = appendDigits(dst, hour, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, minute, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, sec, 2)
	dst = append(dst, '.')
	dst = appendDigits(dst, t.Nanosecond()/int(time.Millisecond), 3) // truncated, as the layout does
	return append(dst, 'Z')
}

// appendDigits appends v (0 <= v < 10^width) in exactly width digits.
func appendDigits(dst []byte, v, width int) []byte {
	var buf [4]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[:width]...)
}
