package command

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
)

// Mode tells Parse which request body it reads.
type Mode int

// Request bodies (spec §4).
const (
	ModeCreate Mode = iota // POST create (an upsert)
	ModeBulk               // one element of a bulk overwrite
	ModeEdit               // the stored command with a PATCH body laid over it
)

// Target is what Parse needs to know about where the command goes.
type Target struct {
	App   App
	Scope Scope
	Mode  Mode
	// Stored is the command an edit (ModeEdit) applies to: integration
	// types it already has pass, even those the app no longer supports,
	// so that a command keeps working through edits that do not touch
	// them.
	Stored *Command
}

var (
	commandTypes     = []int{1, 2, 3, 4}
	optionTypes      = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	subCommandChild  = []int{3, 4, 5, 6, 7, 8, 9, 10, 11}
	groupChild       = []int{1}
	integrationTypes = []int{GuildInstall, UserInstall}
	contextTypes     = []int{ContextGuild, ContextBotDM, ContextPrivateChannel}
	handlerTypes     = []int{HandlerAppHandler, HandlerDiscordLaunchActivity}
	// channelTypes are the channel types a CHANNEL option may restrict to:
	// every guild channel type (DM 1, GROUP_DM 3 and GUILD_DIRECTORY 14 are
	// not selectable in an option).
	channelTypes = []int{0, 2, 4, 5, 10, 11, 12, 13, 15, 16}
)

// Parsed is a decoded, validated and normalized command definition. ID is
// the id a bulk element names, if any.
type Parsed struct {
	Command
	RequestedID snowflake.ID
}

// Parse decodes one command definition (an object from a request body),
// checks every rule of the spec and returns it normalized. Errors are
// collected, not stopped at the first, with paths relative to the object.
func Parse(v any, t Target) (Parsed, *apierr.Fields) {
	errs := &apierr.Fields{}
	o, ok := form.AsObject(v, errs)
	if !ok {
		return Parsed{}, errs
	}
	var p Parsed
	c := &p.Command
	c.ApplicationID = t.App.ID
	c.GuildID = t.Scope.GuildID

	c.Type = ChatInput
	typeOK := true
	if n, ok := o.Choice("type", commandTypes); ok {
		c.Type = Type(n)
	} else if o.Present("type") {
		typeOK = false
	}
	if typeOK && c.Type == PrimaryEntryPoint && !t.Scope.Global() {
		errs.At("type").Add(codeEntryGuild, msgEntryGuild)
	}

	if t.Mode == ModeBulk {
		if id, ok := o.Snowflake("id"); ok {
			p.RequestedID = id
		}
	}

	parseName(o, c, typeOK, errs)
	parseDescription(o, c, typeOK, errs)

	if l, ok := o.List("options"); ok && len(l) > 0 {
		switch {
		case typeOK && (c.Type == User || c.Type == Message):
			errs.At("options").Add(codeOptsContext, msgOptsContext)
		case typeOK && c.Type == PrimaryEntryPoint:
			errs.At("options").Add(codeOptsEntryPoint, msgOptsEntryPoint)
		default:
			c.Options = parseOptions(l, levelTop, errs.At("options"))
		}
	}

	parseDefaultMemberPermissions(o, c, errs)

	c.DefaultPermission = true
	if b, ok := o.Bool("default_permission"); ok {
		c.DefaultPermission = b
	}
	if b, ok := o.Bool("nsfw"); ok {
		c.NSFW = b
	}
	if c.NSFW && t.App.Discoverable {
		errs.At("nsfw").Add(codeNSFWDiscoverable, msgNSFWDiscoverable)
	}
	parseInstallFields(o, c, t, errs)

	if h, ok := o.Choice("handler", handlerTypes); ok {
		switch {
		case typeOK && c.Type != PrimaryEntryPoint:
			errs.At("handler").Add(codeHandlerType, msgHandlerType)
		case !t.App.Embedded():
			errs.At("handler").Add(codeHandlerType, msgHandlerEmbedded)
		default:
			c.Handler = &h
		}
	}

	if errs.Empty() && TotalLength(c) > MaxTotalLength {
		errs.Add(codeTooLarge, msgTooLarge)
	}
	return p, errs
}

func parseName(o form.Object, c *Command, typeOK bool, errs *apierr.Fields) {
	name, ok := o.StrLen("name", 1, MaxNameLength)
	switch {
	case !ok && !o.Present("name"):
		errs.At("name").Add(form.CodeRequired, form.MsgRequired)
	case !ok:
		// type or length error already recorded
	case typeOK && !validName(c.Type, name):
		errs.At("name").Add(codeInvalidName, msgInvalidName)
	default:
		c.Name = name
	}
	c.NameLocalizations = parseLocalizations(o, "name_localizations", c.Name, 1, MaxNameLength, errs,
		func(v string) bool { return !typeOK || validName(c.Type, v) }, true)
}

func validName(t Type, name string) bool {
	if t == ChatInput {
		return ValidChatInputName(name)
	}
	return validContextMenuName(name)
}

func parseDescription(o form.Object, c *Command, typeOK bool, errs *apierr.Fields) {
	desc, ok := o.Str("description")
	contextMenu := typeOK && (c.Type == User || c.Type == Message)
	switch {
	case contextMenu:
		if ok && desc != "" {
			errs.At("description").Add(codeDescContext, msgDescContext)
		}
		if d, ok := o.Dict("description_localizations"); ok && len(nonNull(d)) > 0 {
			errs.At("description_localizations").Add(codeDescContext, msgDescContext)
		}
		return
	case typeOK && c.Type == PrimaryEntryPoint:
		// Entry points carry an optional description of up to 100 characters.
		if ok && runeLen(desc) > MaxDescriptionLength {
			errs.At("description").Add(form.CodeBadLength, form.MsgBadLength(0, MaxDescriptionLength))
		} else if ok {
			c.Description = desc
		}
	case !ok && !o.Present("description"):
		errs.At("description").Add(form.CodeRequired, form.MsgRequired)
	case !ok:
	case runeLen(desc) < 1 || runeLen(desc) > MaxDescriptionLength:
		errs.At("description").Add(form.CodeBadLength, form.MsgBadLength(1, MaxDescriptionLength))
	default:
		c.Description = desc
	}
	c.DescriptionLocalizations = parseLocalizations(o, "description_localizations", c.Description, 1,
		MaxDescriptionLength, errs, nil, false)
}

func nonNull(d map[string]any) map[string]any {
	out := make(map[string]any, len(d))
	for k, v := range d {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// parseLocalizations reads a localization dictionary: keys must be
// supported locales, values follow the base field's length (and, for
// names, naming) rules, null values and values equal to the default are
// dropped. coarseNameError puts naming failures on the dictionary itself,
// as the real service does for command names (but not option names).
func parseLocalizations(o form.Object, key, def string, min, max int, errs *apierr.Fields,
	nameOK func(string) bool, coarseNameError bool,
) Localizations {
	d, ok := o.Dict(key)
	if !ok {
		return nil
	}
	var out Localizations
	badName := false
	for locale, raw := range d {
		// The error node is made only when needed: a maximal command has
		// tens of thousands of localized values.
		at := func() *apierr.Fields { return errs.At(key, locale) }
		if !IsLocale(locale) {
			at().Add(form.CodeChoices, form.MsgChoicesOf(locales))
			continue
		}
		if raw == nil {
			continue
		}
		s, ok := raw.(string)
		if !ok {
			at().Add(form.CodeStringConvert, form.MsgNotString(raw))
			continue
		}
		if n := runeLen(s); n < min || n > max {
			at().Add(form.CodeBadLength, form.MsgBadLength(min, max))
			continue
		}
		if nameOK != nil && !nameOK(s) {
			if coarseNameError {
				badName = true
			} else {
				at().Add(codeInvalidName, msgInvalidName)
			}
			continue
		}
		if s == def {
			continue // identical to the default: ignored (spec §2.9)
		}
		if out == nil {
			out = make(Localizations)
		}
		out[locale] = s
	}
	if badName {
		errs.At(key).Add(codeInvalidName, msgInvalidName)
	}
	return out
}

func parseDefaultMemberPermissions(o form.Object, c *Command, errs *apierr.Fields) {
	v, ok := o.Value("default_member_permissions")
	if !ok {
		return
	}
	s, ok := form.NumberText(v)
	n, err := strconv.ParseUint(s, 10, 64)
	if !ok || err != nil {
		errs.At("default_member_permissions").Add(form.CodeCoerce, form.MsgNotInt(v))
		return
	}
	if n > MaxPermissionBits {
		errs.At("default_member_permissions").Add(form.CodeNumberMax, form.MsgIntMax(MaxPermissionBits))
		return
	}
	norm := strconv.FormatUint(n, 10)
	c.DefaultMemberPermissions = &norm
}

// parseInstallFields handles dm_permission, integration_types and contexts.
// The spec documents them for global commands, and documents guild bulk
// overwrite defaults of [0] and [0,1,2]; guild commands therefore always
// carry those values, whatever path wrote them, so that the same
// definition is identical (and no version bump happens) whether it came
// through create or bulk overwrite. dm_permission is global only and is
// not stored on guild commands.
func parseInstallFields(o form.Object, c *Command, t Target, errs *apierr.Fields) {
	dm, hasDM := o.Bool("dm_permission")
	its, hasIts := o.IntList("integration_types", integrationTypes)
	if hasIts && len(its) == 0 && len(errs.At("integration_types").Leaves()) == 0 {
		errs.At("integration_types").Add(form.CodeMinLength, form.MsgMinLength(1))
	}
	// The defaults below must themselves be acceptable: an app with none
	// configured gets [0], and so does every guild command.
	supported := t.App.IntegrationTypes
	if len(supported) == 0 || !t.Scope.Global() {
		supported = append([]int{GuildInstall}, supported...)
	}
	unchanged := t.Mode == ModeEdit && t.Stored != nil && slices.Equal(its, t.Stored.IntegrationTypes)
	if hasIts && !unchanged {
		// Report at the body's index: its is deduplicated.
		l, _ := o.List("integration_types") // a list, since hasIts
		for i, item := range l {
			if n, _ := form.ToInt(item); !slices.Contains(supported, int(n)) {
				errs.At("integration_types", i).Add(codeIntegration, msgIntegration)
			}
		}
	}
	ctx, hasCtx := o.IntList("contexts", contextTypes)
	if hasCtx && len(ctx) == 0 && o.Present("contexts") {
		errs.At("contexts").Add(form.CodeMinLength, form.MsgMinLength(1))
	}

	if t.Scope.Global() {
		v := true
		if hasDM {
			v = dm
		}
		c.DMPermission = &v
		if hasIts && len(its) > 0 {
			c.IntegrationTypes = its
		} else {
			c.IntegrationTypes = append([]int(nil), t.App.IntegrationTypes...)
			if len(c.IntegrationTypes) == 0 {
				c.IntegrationTypes = []int{GuildInstall}
			}
		}
		if hasCtx && len(ctx) > 0 {
			c.Contexts = ctx
		}
		return
	}
	c.IntegrationTypes = []int{GuildInstall}
	if hasIts && len(its) > 0 {
		c.IntegrationTypes = its
	}
	c.Contexts = []int{ContextGuild, ContextBotDM, ContextPrivateChannel}
	if hasCtx && len(ctx) > 0 {
		c.Contexts = ctx
	}
}

// Nesting levels of an options array.
const (
	levelTop   = iota // the command's own options
	levelGroup        // a group's options: subcommands only
	levelSub          // a subcommand's options: plain options only
)

// parseOptions reads an options array at a nesting level.
func parseOptions(l []any, depth int, errs *apierr.Fields) []Option {
	if len(l) > MaxOptions {
		errs.Add(form.CodeMaxLength, form.MsgMaxLength(MaxOptions))
		return nil
	}
	out := make([]Option, 0, len(l))
	for i, item := range l {
		opt, _ := parseOption(item, depth, errs.At(i))
		out = append(out, opt)
	}
	// The array's own rules run even when an option has errors, so that
	// every independent problem is reported in one response.
	checkSiblings(out, errs)
	return out
}

// parseOption reads one option of an array at the given nesting level.
func parseOption(v any, depth int, errs *apierr.Fields) (Option, bool) {
	o, ok := form.AsObject(v, errs)
	if !ok {
		return Option{}, false
	}
	var opt Option
	n, ok := o.Int("type")
	switch {
	case !ok && !o.Present("type"):
		errs.At("type").Add(form.CodeRequired, form.MsgRequired)
		return opt, false
	case !ok:
		return opt, false
	case !slices.Contains(optionTypes, int(n)):
		errs.Add(form.CodeUnionChoices, form.MsgUnionChoices("type", optionTypes))
		return opt, false
	}
	opt.Type = OptionType(n)
	// Nesting: a group holds only subcommands; a subcommand holds only
	// plain options. Anything else is a type outside the level's union.
	switch {
	case depth == levelGroup && opt.Type != SubCommand:
		errs.Add(form.CodeUnionChoices, form.MsgUnionChoices("type", groupChild))
		return opt, false
	case depth == levelSub && opt.Type.IsSub():
		errs.Add(form.CodeUnionChoices, form.MsgUnionChoices("type", subCommandChild))
		return opt, false
	}

	name, ok := o.StrLen("name", 1, MaxNameLength)
	switch {
	case !ok && !o.Present("name"):
		errs.At("name").Add(form.CodeRequired, form.MsgRequired)
	case !ok:
	case !ValidChatInputName(name):
		errs.At("name").Add(codeInvalidName, msgInvalidName)
	default:
		opt.Name = name
	}
	opt.NameLocalizations = parseLocalizations(o, "name_localizations", opt.Name, 1, MaxNameLength, errs,
		ValidChatInputName, false)

	desc, ok := o.StrLen("description", 1, MaxDescriptionLength)
	switch {
	case !ok && !o.Present("description"):
		errs.At("description").Add(form.CodeRequired, form.MsgRequired)
	case ok:
		opt.Description = desc
	}
	opt.DescriptionLocalizations = parseLocalizations(o, "description_localizations", opt.Description, 1,
		MaxDescriptionLength, errs, nil, false)

	if b, ok := o.Bool("required"); ok && b {
		if opt.Type.IsSub() {
			errs.At("required").Add(codeRequiredType, msgRequiredType)
		} else {
			opt.Required = true
		}
	}

	parseChoices(o, &opt, errs)
	parseSubOptions(o, &opt, depth, errs)
	parseChannelTypes(o, &opt, errs)
	parseValueRange(o, &opt, errs)
	parseLengthRange(o, &opt, errs)

	if b, ok := o.Bool("autocomplete"); ok && b {
		switch {
		case opt.Type != String && opt.Type != Integer && opt.Type != Number:
			errs.At("autocomplete").Add(codeAutocomplete, msgAutocompleteTyp)
		case len(opt.Choices) > 0:
			errs.At("autocomplete").Add(codeAutocomplete, msgAutocompleteCh)
		default:
			opt.Autocomplete = true
		}
	}
	return opt, errs.Empty()
}

func parseChoices(o form.Object, opt *Option, errs *apierr.Fields) {
	l, ok := o.List("choices")
	if !ok || len(l) == 0 {
		return
	}
	if opt.Type != String && opt.Type != Integer && opt.Type != Number {
		errs.At("choices").Add(codeChoicesInvalid, msgChoicesInvalid)
		return
	}
	if len(l) > MaxChoices {
		errs.At("choices").Add(form.CodeMaxLength, form.MsgMaxLength(MaxChoices))
		return
	}
	for i, item := range l {
		at := errs.At("choices", i)
		co, ok := form.AsObject(item, at)
		if !ok {
			continue
		}
		var ch Choice
		name, ok := co.StrLen("name", 1, MaxChoiceNameLength)
		switch {
		case !ok && !co.Present("name"):
			at.At("name").Add(form.CodeRequired, form.MsgRequired)
		case ok:
			ch.Name = name
		}
		ch.NameLocalizations = parseLocalizations(co, "name_localizations", ch.Name, 1, MaxChoiceNameLength,
			at, nil, false)
		ch.Value = parseChoiceValue(co, opt.Type, at)
		opt.Choices = append(opt.Choices, ch)
	}
}

func parseChoiceValue(co form.Object, t OptionType, at *apierr.Fields) any {
	if !co.Require("value") {
		return nil
	}
	raw, _ := co.Value("value")
	switch t {
	case String:
		s, ok := raw.(string)
		if !ok {
			at.At("value").Add(form.CodeStringConvert, form.MsgNotString(raw))
			return nil
		}
		if runeLen(s) > MaxChoiceValueLength {
			at.At("value").Add(form.CodeBadLength, form.MsgBadLength(0, MaxChoiceValueLength))
			return nil
		}
		return s
	default: // INTEGER or NUMBER
		f, ok := numericValue(raw, t, at.At("value"))
		if !ok {
			return nil
		}
		return f
	}
}

// numericValue reads a JSON number for an INTEGER (integral, within
// ±(2^53-1)) or NUMBER (within ±2^53) option, recording errors at at.
func numericValue(raw any, t OptionType, at *apierr.Fields) (float64, bool) {
	_, isNum := raw.(json.Number)
	if t == Integer {
		if !isNum {
			at.Add(form.CodeCoerce, form.MsgNotInt(raw))
			return 0, false
		}
		n, ok := form.IntValue(raw, -MaxSafeInteger, MaxSafeInteger, at)
		return float64(n), ok
	}
	f, ok := form.ToFloat(raw)
	if !isNum || !ok {
		at.Add(form.CodeCoerce, form.MsgNotNumber(raw))
		return 0, false
	}
	return f, floatInRange(f, at)
}

func floatInRange(f float64, at *apierr.Fields) bool {
	if f > MaxNumber {
		at.Add(form.CodeNumberMax, form.MsgFloatMax(MaxNumber))
		return false
	}
	if f < -MaxNumber {
		at.Add(form.CodeNumberMin, form.MsgFloatMin(-MaxNumber))
		return false
	}
	return true
}

func parseSubOptions(o form.Object, opt *Option, depth int, errs *apierr.Fields) {
	l, ok := o.List("options")
	if !ok || len(l) == 0 {
		return
	}
	switch opt.Type {
	case SubCommandGroup:
		opt.Options = parseOptions(l, levelGroup, errs.At("options"))
	case SubCommand:
		opt.Options = parseOptions(l, levelSub, errs.At("options"))
	default:
		errs.At("options").Add(codeSubOptions, msgSubOptions)
	}
}

func parseChannelTypes(o form.Object, opt *Option, errs *apierr.Fields) {
	if l, ok := o.List("channel_types"); !ok || len(l) == 0 {
		return
	}
	if opt.Type != Channel {
		errs.At("channel_types").Add(codeChannelTypes, msgChannelTypes)
		return
	}
	ct, ok := o.IntList("channel_types", channelTypes)
	if ok {
		opt.ChannelTypes = ct
	}
}

func parseValueRange(o form.Object, opt *Option, errs *apierr.Fields) {
	read := func(key string) *float64 {
		raw, ok := o.Value(key)
		if !ok {
			return nil
		}
		if opt.Type != Integer && opt.Type != Number {
			errs.At(key).Add(codeValueRange, msgValueRange)
			return nil
		}
		f, ok := numericValue(raw, opt.Type, errs.At(key))
		if !ok {
			return nil
		}
		return &f
	}
	opt.MinValue, opt.MaxValue = read("min_value"), read("max_value")
	if opt.MinValue != nil && opt.MaxValue != nil && *opt.MinValue > *opt.MaxValue {
		errs.At("min_value").Add(codeMinGreaterMax, msgMinValueMax)
	}
}

func parseLengthRange(o form.Object, opt *Option, errs *apierr.Fields) {
	read := func(key string, min int64) *int {
		if !o.Present(key) {
			return nil
		}
		if opt.Type != String {
			errs.At(key).Add(codeLengthRange, msgLengthRange)
			return nil
		}
		n, ok := o.IntIn(key, min, MaxStringLength)
		if !ok {
			return nil
		}
		v := int(n)
		return &v
	}
	opt.MinLength, opt.MaxLength = read("min_length", 0), read("max_length", 1)
	if opt.MinLength != nil && opt.MaxLength != nil && *opt.MinLength > *opt.MaxLength {
		errs.At("min_length").Add(codeMinGreaterMax, msgMinLengthMax)
	}
}

// checkSiblings applies the rules that span one options array: unique
// names, required before optional, subcommands not mixed with plain
// options, and distinct localized names per locale.
func checkSiblings(opts []Option, errs *apierr.Fields) {
	seen := make(map[string]bool, len(opts))
	optionalSeen := false
	hasSub, hasPlain := false, false
	for i, opt := range opts {
		if opt.Name == "" || opt.Type == 0 {
			continue // unreadable option: its own errors say why
		}
		if seen[opt.Name] {
			errs.At(i).Add(codeOptionNameDup, msgOptionNameDup)
		}
		seen[opt.Name] = true
		if opt.Type.IsSub() {
			if hasPlain {
				errs.At(i).Add(codeOptionTypeMix, msgOptionTypeMix)
			}
			hasSub = true
			continue
		}
		if hasSub {
			errs.At(i).Add(codeOptionTypeMix, msgOptionTypeMix)
		}
		hasPlain = true
		if opt.Required && optionalSeen {
			errs.At(i).Add(codeRequiredOrder, msgRequiredOrder)
		}
		if !opt.Required {
			optionalSeen = true
		}
	}
	checkLocalizedNames(opts, errs)
}

// checkLocalizedNames: within a locale, the names users see (localized, or
// the default where none) must be distinct, and no localized name may equal
// another option's default name (spec §2.9).
func checkLocalizedNames(opts []Option, errs *apierr.Fields) {
	defaults := make(map[string]int, len(opts))
	for i, opt := range opts {
		defaults[opt.Name] = i
	}
	used := map[string]bool{}
	for _, opt := range opts {
		for l := range opt.NameLocalizations {
			used[l] = true
		}
	}
	for locale := range used {
		shown := make(map[string]bool, len(opts))
		for i, opt := range opts {
			name, localized := opt.NameLocalizations[locale]
			if !localized {
				name = opt.Name
			}
			clash := shown[name]
			if j, ok := defaults[name]; localized && ok && j != i {
				clash = true
			}
			// Only a localized name can be at fault: a default name that
			// a localized one copies is reported on the localized one.
			if clash && localized {
				errs.At(i, "name_localizations", locale).Add(codeLocalizedDup, msgLocalizedDup(locale))
			}
			shown[name] = true
		}
	}
}

// TotalLength is the spec's 8000-character measure: names, descriptions
// and choice values of the command, its options (recursively) and their
// choices, counting only the longest variant (default or localized) of
// each field, in code points.
func TotalLength(c *Command) int {
	n := longest(c.Name, c.NameLocalizations) + longest(c.Description, c.DescriptionLocalizations)
	for i := range c.Options {
		n += optionLength(&c.Options[i])
	}
	return n
}

func optionLength(o *Option) int {
	n := longest(o.Name, o.NameLocalizations) + longest(o.Description, o.DescriptionLocalizations)
	for _, ch := range o.Choices {
		n += longest(ch.Name, ch.NameLocalizations)
		switch v := ch.Value.(type) {
		case string:
			n += runeLen(v)
		case float64:
			// As rendered in JSON: 1e-300 is 6 characters, not 302.
			b, _ := jsonenc.Marshal(v)
			n += len(b)
		}
	}
	for i := range o.Options {
		n += optionLength(&o.Options[i])
	}
	return n
}

func longest(def string, locs Localizations) int {
	n := runeLen(def)
	for _, v := range locs {
		if m := runeLen(v); m > n {
			n = m
		}
	}
	return n
}
