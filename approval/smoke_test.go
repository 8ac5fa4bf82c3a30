package approval_test

import "testing"

func TestApproveOnce(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ch := f.challenge(testTool, testArgs)
	ev := f.evidence(ch)
	a, err := f.verify(testTool, testArgs, ev)
	if err != nil {
		t.Fatal(err)
	}
	if a.Tool != testTool || a.SignCount != 2 {
		t.Fatalf("approval %+v", a)
	}
	_, err = f.verify(testTool, testArgs, ev)
	wantReason(t, err, "challenge_consumed")
}
