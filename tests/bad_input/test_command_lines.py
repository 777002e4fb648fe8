"""The command-line corpus: bad command lines get one exit status each (harness.exitcodes) and a
message naming what is wrong (and the file, where there is one), never a traceback.

Each entry: the arguments (``{run}`` a finished run, ``{tmp}`` a scratch folder, ``{key}``/``{pub}``
a key pair), the exit status, and the words of the message.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from harness import exitcodes
from harness.cli import main
from harness.record.signing import generate_key

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "record"))
from recordkit import build_run

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "device_profiles" / "emulated-midi-5.yaml"
BAD_PROFILE = ROOT / "tests" / "bad_input" / "profiles" / "decks-9.yaml"

DEAL = ["deal", "--game", "baccarat", "--cards", "KS 3C 9C KH"]
CORPUS: dict[str, tuple[list[str], int, str]] = {
    # the command itself
    "no-command": ([], exitcodes.BAD_INPUT, "usage: tablecert"),
    "unknown-command": (["certify"], exitcodes.BAD_INPUT, "invalid choice: 'certify'"),
    "unknown-flag": (["validate", "--strict", str(PROFILE)], exitcodes.BAD_INPUT, "unrecognized arguments: --strict"),
    "missing-argument": (["verify"], exitcodes.BAD_INPUT, "the following arguments are required: record"),
    # validate
    "validate-missing-file": (["validate", "{tmp}/nope.yaml"], exitcodes.BAD_INPUT,
                              "{tmp}/nope.yaml: cannot read: No such file or directory"),
    "validate-empty-folder": (["validate", "{tmp}"], exitcodes.BAD_INPUT, "no *.yaml files under"),
    "validate-bad-profile-flag": (["validate", str(ROOT / "suites" / "identity"), "--profile", str(BAD_PROFILE)],
                                  exitcodes.BAD_INPUT, f"{BAD_PROFILE}:"),
    "validate-profile-flag-missing": (["validate", str(PROFILE), "--profile", "{tmp}/none.yaml"],
                                      exitcodes.BAD_INPUT, "{tmp}/none.yaml: cannot read"),
    # run (checked before anything starts)
    "run-missing-suite": (["run", "{tmp}/no-suite.suite.yaml", "--profile", str(PROFILE)], exitcodes.BAD_INPUT,
                          "no such suite file or directory"),
    "run-missing-profile": (["run", "--profile", "{tmp}/none.yaml"], exitcodes.BAD_INPUT, "none.yaml: no such file"),
    "run-bad-profile": (["run", "--profile", str(BAD_PROFILE)], exitcodes.BAD_INPUT,
                        f"{BAD_PROFILE}:12:10: rules.decks: 9 is out of range"),
    "run-profile-is-a-folder": (["run", "--profile", "{tmp}"], exitcodes.BAD_INPUT,
                                "--profile {tmp}: a directory; give the profile file"),
    "run-workers-zero": (["run", "--profile", str(PROFILE), "-n", "0"], exitcodes.BAD_INPUT,
                         "argument -n: 0: out of range (1..64)"),
    "run-workers-negative": (["run", "--profile", str(PROFILE), "-n", "-1"], exitcodes.BAD_INPUT,
                             "argument -n: '-1': not a whole number (it must be 1 or more)"),
    "run-workers-arabic": (["run", "--profile", str(PROFILE), "-n", "\u0662"], exitcodes.BAD_INPUT,
                           "U+0662 ARABIC-INDIC DIGIT TWO"),
    "run-report-dir-is-a-file": (["run", "--profile", str(PROFILE), "--report-dir", "{key}"], exitcodes.BAD_INPUT,
                                 "--report-dir {key}: is a file; give a folder"),
    "run-report-dir-under-a-file": (["run", "--profile", str(PROFILE), "--report-dir", "{key}/reports"],
                                    exitcodes.BAD_INPUT, "--report-dir {key}/reports: is under a file"),
    "run-report-dir-dev-null": (["run", "--profile", str(PROFILE), "--report-dir", "/dev/null"], exitcodes.BAD_INPUT,
                                "--report-dir /dev/null: is not a folder (a device, FIFO or socket)"),
    "run-suite-is-a-profile": (["run", str(PROFILE), "--profile", str(PROFILE)], exitcodes.BAD_INPUT,
                               f"{PROFILE}: a device profile: give it with --profile, not a suite"),
    "run-suite-is-a-stacks-file": (["run", str(ROOT / "fixtures" / "stacks" / "baccarat.yaml"), "--profile",
                                    str(PROFILE)], exitcodes.BAD_INPUT, "a stacks file (fixtures/stacks/)"),
    "run-suite-is-a-key": (["run", "{key}", "--profile", str(PROFILE)], exitcodes.BAD_INPUT,
                           "{key}: not a suite file, not a suite"),
    "run-suite-folder-without-suites": (["run", "{nonempty}", "--profile", str(PROFILE)], exitcodes.BAD_INPUT,
                                        "{nonempty}: no *.suite.yaml file in this folder"),
    # verify
    "verify-missing-record": (["verify", "{tmp}/no-run"], exitcodes.BAD_INPUT, "no such record"),
    "verify-empty-folder": (["verify", "{tmp}"], exitcodes.BAD_INPUT, "no record.json or journal.jsonl here"),
    "verify-wrong-digest": (["verify", "{run}", "--digest", "0" * 64], exitcodes.FAIL, "is not the expected"),
    "verify-digest-not-hex": (["verify", "{run}", "--digest", "xyz"], exitcodes.BAD_INPUT,
                              "--digest 'xyz': a record digest is 64 hex digits"),
    "verify-digest-empty": (["verify", "{run}", "--digest", ""], exitcodes.BAD_INPUT,
                            "--digest '': a record digest is 64 hex digits"),
    "verify-digest-short": (["verify", "{run}", "--digest", "17adcdfa"], exitcodes.BAD_INPUT,
                            "--digest '17adcdfa': a record digest is 64 hex digits"),
    "verify-killed-run": (["verify", "{killed}"], exitcodes.RIG_ERROR, "the record is incomplete"),
    "verify-plain-file": (["verify", "{key}"], exitcodes.BAD_INPUT,
                          "{key}: a file, not a record: give a run directory, its record.json or its journal.jsonl"),
    "verify-fifo": (["verify", "{fifo}"], exitcodes.BAD_INPUT, "{fifo}: not a record (neither a folder nor"),
    "verify-key-missing": (["verify", "{run}", "--key", "{tmp}/none.pub"], exitcodes.BAD_INPUT,
                           "{tmp}/none.pub: cannot read"),
    "verify-key-is-private": (["verify", "{run}", "--key", "{key}"], exitcodes.BAD_INPUT, "a private key"),
    "verify-key-not-a-key": (["verify", "{run}", "--key", str(PROFILE)], exitcodes.BAD_INPUT, "not a PEM public key"),
    "verify-unsigned-with-key": (["verify", "{run}", "--key", "{pub}"], exitcodes.FAIL,
                                 "record.sig: missing (the record is not signed)"),
    # report
    "report-missing-record": (["report", "{tmp}/no-run"], exitcodes.BAD_INPUT, "no such record"),
    "report-out-in-missing-folder": (["report", "{run}", "--out", "{tmp}/no/such/dir/r.html"], exitcodes.BAD_INPUT,
                                     "No such file or directory"),
    "report-out-is-a-folder": (["report", "{run}", "--out", "{tmp}"], exitcodes.BAD_INPUT,
                               "--out {tmp}: a directory; give the file to write"),
    "report-out-dev-full": (["report", "{run}", "--out", "/dev/full"], exitcodes.BAD_INPUT,
                            "--out /dev/full: not a regular file (a device, FIFO or socket)"),
    "report-gap-out-dev-null": (["report", "{run}", "--format", "gap", "--out", "/dev/null"], exitcodes.BAD_INPUT,
                                "--out /dev/null: not a regular file"),
    "report-lab-template-over-the-views": (["report", "{run}", "--report-number", "AL-1"], exitcodes.BAD_INPUT,
                                           "render a lab's own copy of the report: write it with --out FILE"),
    "report-killed-run": (["report", "{killed}", "--out", "{tmp}/r.html"], exitcodes.RIG_ERROR, "NOT VALID"),
    # merge
    "merge-same-record-twice": (["merge", "{run}", "{run}", "--out", "{tmp}/m"], exitcodes.BAD_INPUT,
                                "the same record as"),
    "merge-same-record-by-another-path": (["merge", "{run}", "{run}/record.json", "--out", "{tmp}/m"],
                                          exitcodes.BAD_INPUT, "the same record as"),
    "merge-out-is-a-source": (["merge", "{run}", "--out", "{run}"], exitcodes.BAD_INPUT,
                              "--out is one of the records being merged"),
    "merge-out-not-empty": (["merge", "{run}", "--out", "{nonempty}"], exitcodes.BAD_INPUT,
                            "exists and is not empty"),
    "merge-missing-record": (["merge", "{tmp}/no-run", "--out", "{tmp}/m"], exitcodes.BAD_INPUT, "no such record"),
    "merge-out-inside-a-source": (["merge", "{run}", "--out", "{run}/evidence/merged"], exitcodes.BAD_INPUT,
                                  "--out is inside the record"),
    "merge-out-not-a-run-id": (["merge", "{run}", "--out", "{tmp}/merged copy"], exitcodes.BAD_INPUT,
                               "a folder is named by its run id"),
    "merge-killed-run": (["merge", "{killed}", "--out", "{tmp}/m"], exitcodes.BAD_INPUT,
                         "does not verify: the record is incomplete"),
    "merge-tampered-record": (["merge", "{tampered}", "--out", "{tmp}/m"], exitcodes.BAD_INPUT, "does not verify"),
    # keys and signatures
    "keygen-exists": (["keygen", "{key}"], exitcodes.BAD_INPUT, "exists; a key is never overwritten"),
    "keygen-missing-folder": (["keygen", "{tmp}/no/such/k.key"], exitcodes.BAD_INPUT, "cannot write the key"),
    "sign-with-public-key": (["sign", "{run}", "--key", "{pub}", "--signer", "Lab"], exitcodes.BAD_INPUT,
                             "not an unencrypted PEM private key"),
    "sign-empty-signer": (["sign", "{run}", "--key", "{key}", "--signer", "  "], exitcodes.BAD_INPUT,
                          "--signer: the name of the lab"),
    "sign-tampered-record": (["sign", "{tampered}", "--key", "{key}", "--signer", "Lab"], exitcodes.FAIL,
                             "not signed: the record does not verify"),
    "sign-missing-key": (["sign", "{run}", "--key", "{tmp}/none.key", "--signer", "Lab"], exitcodes.BAD_INPUT,
                         "none.key: cannot read"),
    # other commands' input
    "stack-unknown-want": (["stack", "--game", "baccarat", "--want", "plyer"], exitcodes.BAD_INPUT, "unknown want"),
    "deal-bad-card": (["deal", "--game", "baccarat", "--cards", "KS 9X 9S KH"], exitcodes.BAD_INPUT, "unknown suit"),
    # numbers: ASCII digits only, within bounds, no '_' (redteam rows 34-41)
    "deal-stake-41-digits": ([*DEAL, "--stake", "1" + "0" * 40], exitcodes.BAD_INPUT,
                             "argument --stake: 1" + "0" * 39),
    "deal-stake-zero": ([*DEAL, "--stake", "0"], exitcodes.BAD_INPUT, "argument --stake: 0: out of range"),
    "deal-stake-arabic-indic": ([*DEAL, "--stake", "\u0665\u0660\u0660"], exitcodes.BAD_INPUT,
                                "ASCII digits 0-9 only) (contains U+0665 ARABIC-INDIC DIGIT FIVE"),
    "deal-stake-full-width": ([*DEAL, "--stake", "\uff15\uff10\uff10"], exitcodes.BAD_INPUT,
                              "U+FF15 FULLWIDTH DIGIT FIVE"),
    "deal-stake-underscore": ([*DEAL, "--stake", "5_00"], exitcodes.BAD_INPUT, "'5_00': not a whole number "
                              "(write it without '_')"),
    "deal-stake-spaced": ([*DEAL, "--stake", " 500"], exitcodes.BAD_INPUT, "not a whole number"),
    "deal-decks-arabic-indic": ([*DEAL, "--decks", "\u0668"], exitcodes.BAD_INPUT, "U+0668 ARABIC-INDIC DIGIT EIGHT"),
    "deal-decks-nine": ([*DEAL, "--decks", "9"], exitcodes.BAD_INPUT, "argument --decks: 9: out of range (1..8)"),
    "deal-denomination-arabic-indic": ([*DEAL, "--royal9", "--denomination", "\u0665"], exitcodes.BAD_INPUT,
                                       "argument --denomination"),
    "deal-meters-arabic-indic": ([*DEAL, "--royal9", "--meters", "mega=\u0665000000"], exitcodes.BAD_INPUT,
                                 "--meters mega: amount in whole cents '\u0665000000': not a whole number"),
    "deal-seat-combos-arabic-indic": ([*DEAL, "--royal9", "--seat-combos", "\u0661=KS9H"], exitcodes.BAD_INPUT,
                                      "--seat-combos: seat '\u0661': not a whole number"),
    "deal-wagers-full-width": ([*DEAL, "--royal9", "--wagers", "\uff11"], exitcodes.BAD_INPUT,
                               "--wagers: seat '\uff11': not a whole number"),
    "deal-meter-negative": (["deal", "--game", "blackjack", "--cards", "2S 2D 2C 2H 3S 7D", "--meter", "-5"],
                            exitcodes.BAD_INPUT, "argument --meter"),
    "math-decks-full-width": (["math", "--game", "baccarat", "--decks", "\uff18"], exitcodes.BAD_INPUT,
                              "argument --decks"),
    "math-stake-underscore": (["math", "--game", "hit-and-run", "--stake", "1_000"], exitcodes.BAD_INPUT,
                              "without '_'"),
    "stack-seed-arabic-indic": (["stack", "--game", "baccarat", "--want", "player", "--seed", "\u0667"],
                                exitcodes.BAD_INPUT, "argument --seed"),
    "stack-max-tries-zero": (["stack", "--game", "baccarat", "--want", "player", "--max-tries", "0"],
                             exitcodes.BAD_INPUT, "argument --max-tries: 0: out of range"),
    "soak-rounds-zero": (["soak", "--profile", str(PROFILE), "--rounds", "0"], exitcodes.BAD_INPUT,
                         "argument --rounds: 0: out of range"),
    "soak-seats-arabic-indic": (["soak", "--profile", str(PROFILE), "--rounds", "1", "--seats", "\u0661"],
                                exitcodes.BAD_INPUT, "seat '\u0661': not a whole number"),
    "soak-pace-full-width": (["soak", "--profile", str(PROFILE), "--rounds", "1", "--pace-ms", "\uff15"],
                             exitcodes.BAD_INPUT, "expected milliseconds in ASCII digits"),
    "variants-count-zero": (["variants", "--count", "0"], exitcodes.BAD_INPUT, "argument --count: 0: out of range"),
    "variants-deadline-nan": (["variants", "--deadline", "nan"], exitcodes.BAD_INPUT,
                              "argument --deadline: 'nan': not a number of seconds"),
    "defects-jobs-zero": (["defects", "--matrix", "--jobs", "0"], exitcodes.BAD_INPUT, "argument --jobs: 0"),
    "defects-deadline-negative": (["defects", "--matrix", "--deadline", "-1"], exitcodes.BAD_INPUT,
                                  "argument --deadline"),
    # validate: what a folder walk must not skip in silence, what two suites must not share (rows 14, 45)
    "validate-yml-suite-in-a-folder": (["validate", "{ymldir}"], exitcodes.BAD_INPUT,
                                       "{ymldir}/typo.suite.yml: named .yml: tablecert reads *.yaml files only"),
    "validate-same-case-id-in-two-suites": (["validate", "{twosuites}"], exitcodes.BAD_INPUT,
                                            "{twosuites}/b.suite.yaml:6:5: case id 'same-id' is also in "
                                            "{twosuites}/a.suite.yaml:6"),
}


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("cli")
    run = build_run(base / "good", verdicts=("PASS", "FAIL"))
    tampered = build_run(base / "bad", verdicts=("PASS",))
    (tampered / "journal.jsonl").unlink()
    nonempty = base / "nonempty"
    nonempty.mkdir()
    (nonempty / "x").write_text("x")
    keys = base / "keys"
    keys.mkdir()
    generate_key(keys / "lab.key")
    killed = build_run(base / "killed", verdicts=("PASS",), finish=False)
    ymldir = base / "ymldir"
    ymldir.mkdir()
    shutil.copy(ROOT / "suites" / "identity" / "identity.suite.yaml", ymldir / "good.suite.yaml")
    shutil.copy(ROOT / "suites" / "identity" / "identity.suite.yaml", ymldir / "typo.suite.yml")
    twosuites = base / "two"
    twosuites.mkdir()
    for name in ("a", "b"):
        (twosuites / f"{name}.suite.yaml").write_text(
            f"spec: tablecert/suite/1\nsuite: {name}\ntitle: t\nrequires: [royal9]\ncases:\n  - id: same-id\n"
            "    title: t\n    clauses: [pa-midi-r9-a1-wagering-device]\n    steps:\n      - open_round\n"
            "      - expect_r9_wagers_listed\n")
    fifo = base / "fifo"
    os.mkfifo(fifo)
    return {"run": str(run), "tampered": str(tampered), "nonempty": str(nonempty), "key": str(keys / "lab.key"),
            "pub": str(keys / "lab.key.pub"), "killed": str(killed), "ymldir": str(ymldir),
            "twosuites": str(twosuites), "fifo": str(fifo)}


def test_corpus_size() -> None:
    assert len(CORPUS) >= 30


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_bad_command_line(name: str, places: dict[str, str], tmp_path: Path,
                          capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    argv, status, words = CORPUS[name]
    subst = {**places, "tmp": str(tmp_path)}
    argv = [a.format(**subst) for a in argv]
    monkeypatch.chdir(ROOT)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == status, text
    assert "Traceback" not in text
    assert words.format(**subst) in text, text


def test_relative_paths_mean_the_users_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`tablecert run my.suite.yaml --profile my.yaml` from anywhere: the paths handed to the run
    are those of the user's working directory, not the checkout's."""
    from harness.cli import run_cmd

    shutil.copy(PROFILE, tmp_path / "p.yaml")
    (tmp_path / "s").mkdir()
    shutil.copy(ROOT / "suites" / "identity" / "identity.suite.yaml", tmp_path / "s" / "x.suite.yaml")
    seen: list[list[str]] = []
    def fake_run(cmd: list[str], root: Path, pr: object, progress: object) -> bool:
        seen.append(cmd)
        return False

    monkeypatch.setattr(run_cmd, "run_profile", fake_run)
    monkeypatch.setattr(run_cmd, "judge", lambda pr: None)
    monkeypatch.setattr(run_cmd, "summary", lambda runs, pre, interrupted: 0)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "s/x.suite.yaml", "--profile", "p.yaml", "--report-dir", str(tmp_path / "r")]) == 0
    cmd = seen[0]
    assert str(tmp_path / "s" / "x.suite.yaml") in cmd
    assert cmd[cmd.index("--tc-profile") + 1] == str(tmp_path / "p.yaml")


def test_run_refuses_a_suite_naming_seats_the_table_lacks(tmp_path: Path) -> None:
    """At collection, before any device is opened: a suite naming seat 7 against a six-seat profile
    (the shipped suites name seats by role, so the suite here writes one literally)."""
    import subprocess

    six = tmp_path / "six.yaml"
    six.write_text("".join(line for line in PROFILE.read_text().splitlines(keepends=True) if "{seat: 7" not in line))
    suite = tmp_path / "seven.suite.yaml"
    suite.write_text("spec: tablecert/suite/1\nsuite: seven\ntitle: Seat 7\nrequires: [royal9]\ncases:\n"
                     "  - id: seat-seven\n    title: a wager at seat 7\n    clauses: [pa-midi-r9-a1-wagering-device]\n"
                     "    steps:\n      - open_round\n      - wager: {seat: 7, type: player, amount: \"$10\"}\n"
                     "      - expect_r9_wagers_listed\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(suite), "-p", "no:cacheprovider", "--tc-profile", str(six),
         "--tc-no-record", "--co", "-q", "-o", "testpaths="],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode != 0
    assert f"{suite}:" in proc.stdout and "seat 7 is not on the table of profile" in proc.stdout


def test_verify_into_a_closed_pipe_keeps_its_status(places: dict[str, str]) -> None:
    """`tablecert verify R | head -1` over a record that does not verify still exits 1."""
    import subprocess

    verify = f"'{sys.executable}' -m harness verify '{places['tampered']}'"
    proc = subprocess.run(
        ["sh", "-c", f"({verify}; echo \"status $?\" >&2) | head -1"],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.stdout.count("\n") == 1
    assert "status 1" in proc.stderr and "Traceback" not in proc.stderr


BROKEN_PIPE = {
    # command, the status it ends with when its reader is gone before the first line
    "validate-a-valid-folder": (["validate", str(ROOT / "suites" / "identity")], exitcodes.RIG_ERROR),
    "validate-one-valid-profile": (["validate", str(PROFILE)], exitcodes.RIG_ERROR),
    "validate-a-bad-profile": (["validate", str(BAD_PROFILE)], exitcodes.BAD_INPUT),
    "verify-a-good-record": (["verify", "{run}"], exitcodes.RIG_ERROR),
    "verify-a-tampered-record": (["verify", "{tampered}"], exitcodes.FAIL),
    "catalogue": (["catalogue"], exitcodes.RIG_ERROR),
    "deal": ([*DEAL], exitcodes.RIG_ERROR),
    "report-gap": (["report", "{run}", "--format", "gap"], exitcodes.RIG_ERROR),
}


@pytest.mark.parametrize("name", sorted(BROKEN_PIPE))
def test_a_broken_pipe_is_never_success(name: str, places: dict[str, str]) -> None:
    """Redteam rows 42-44: the reader went away before the first line, so nobody saw the result: a
    command that found nothing wrong exits 3, one that found a problem keeps its status; never 0,
    never a traceback (harness.exitcodes)."""
    import subprocess

    argv, status = BROKEN_PIPE[name]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes anything: every write is EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", "harness", *(a.format(**places) for a in argv)],
                              check=False, cwd=ROOT, stdout=write, stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write)
    assert proc.returncode == status, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
