package command

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Locales are the locale keys a localization dictionary may use: the 32 of
// the real service's documentation plus "ar" and "he", which its OpenAPI
// document also lists.
var locales = []string{
	"id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no",
	"pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th",
	"zh-CN", "ja", "zh-TW", "ko", "ar", "he",
}

var localeSet = func() map[string]bool {
	m := make(map[string]bool, len(locales))
	for _, l := range locales {
		m[l] = true
	}
	return m
}()

// Locales returns the supported locale keys.
func Locales() []string { return append([]string(nil), locales...) }

// IsLocale reports whether s is a supported locale key.
func IsLocale(s string) bool { return localeSet[s] }

// localeFallback is the first fallback tried for a locale missing from a
// dictionary (spec §2.9), before the default value.
var localeFallback = map[string]string{"en-US": "en-GB", "en-GB": "en-US", "es-419": "es-ES"}

// Lookup returns the localized value for locale, applying the fallbacks.
func (l Localizations) Lookup(locale string) (string, bool) {
	if locale == "" || l == nil {
		return "", false
	}
	if v, ok := l[locale]; ok {
		return v, true
	}
	if fb, ok := localeFallback[locale]; ok {
		if v, ok := l[fb]; ok {
			return v, true
		}
	}
	return "", false
}

// MatchLocale maps a language tag (e.g. from Accept-Language: "de-DE",
// "en", "pt") to a supported locale, or "".
func MatchLocale(tag string) string {
	tag = strings.TrimSpace(tag)
	if tag == "" {
		return ""
	}
	for _, l := range locales {
		if strings.EqualFold(l, tag) {
			return l
		}
	}
	base, _, _ := strings.Cut(tag, "-")
	base = strings.ToLower(base)
	switch base {
	case "en":
		if strings.EqualFold(tag, "en-gb") {
			return "en-GB"
		}
		return "en-US"
	case "es":
		if strings.HasPrefix(strings.ToLower(tag), "es-") && !strings.EqualFold(tag, "es-es") {
			return "es-419"
		}
		return "es-ES"
	case "pt":
		return "pt-BR"
	case "sv":
		return "sv-SE"
	case "zh":
		lt := strings.ToLower(tag)
		if strings.Contains(lt, "tw") || strings.Contains(lt, "hant") || strings.Contains(lt, "hk") {
			return "zh-TW"
		}
		return "zh-CN"
	case "nb", "nn":
		return "no"
	}
	if localeSet[base] {
		return base
	}
	return ""
}

// chatInputName is the spec's naming rule for CHAT_INPUT command and option
// names. Go spells \p{sc=Deva} and \p{sc=Thai} as \p{Devanagari}, \p{Thai}.
// {1,32} counts code points, as the real service (Python) does.
var chatInputName = regexp.MustCompile(`^[-_'\p{L}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)

// ValidChatInputName reports whether name matches the regex and uses the
// lowercase variant of every cased letter.
func ValidChatInputName(name string) bool {
	return chatInputName.MatchString(name) && strings.ToLower(name) == name
}

// validContextMenuName: USER and MESSAGE (and entry point) names may be
// mixed case with spaces, but not blank.
func validContextMenuName(name string) bool {
	return strings.TrimSpace(name) != "" && utf8.ValidString(name)
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }
