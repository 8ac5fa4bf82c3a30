package mcpredact

import "testing"

// Red team rvg: a lower-case word that is no primitive type was a value
// only as a union's whole member; written as a pointer's target, a
// generic's base or argument, a qualified name's last part, a call's name
// or a named argument's value, it read as a type and went out unscanned
// after a colon.
func TestRedTeamRVG_LowerWordsInTypes(t *testing.T) {
	for _, doc := range []string{
		"password: *hunter_two\n",
		"password: List<hunter_two>;\n",
		"password: hunter_two<x>;\n",
		"password: x<correct,horse,battery>\n",
		"password: hunter.two;\n",
		"password: correct.horse.battery.staple;\n",
		"password: hunter_two(),\n",
		"password: hunter.two(x),\n",
		"password: correct_horse(battery=staple)\n",
		"password: z.correct().horse(1)\n",
	} {
		if got, f := rvaTexts(t, doc); got[0] == doc || len(f) == 0 {
			t.Errorf("a password went out as a type: %q", doc)
		}
	}
}

// Near misses: qualifiers, primitives, schema calls with named arguments
// and chained methods, and defaults stay types.
func TestRedTeamRVG_LowerWordsTypesKept(t *testing.T) {
	for _, doc := range []string{
		"password: string;\n",
		"password?: string,\n",
		"password: *string\n",
		"password: []string\n",
		"password: string[];\n",
		"password: Map<string, string>;\n",
		"password: Secret<string>;\n",
		"password: t.string,\n",
		"  password: z.string().min(12).max(64),\n",
		"  password: z.coerce.string().trim(),\n",
		"password: yup.string().required(),\n",
		"password: Joi.string().min(8).required(),\n",
		"password: field(default=None, repr=false),\n",
		"password: Field(default=None, alias='pw'),\n",
		"password: PropTypes.string.isRequired,\n",
		"password: str | None = None\n",
		"password: sql.NullString;\n",
	} {
		if got, f := rvaTexts(t, doc); got[0] != doc {
			t.Errorf("a type changed (%v): %q -> %q", f, doc, got[0])
		}
	}
}
