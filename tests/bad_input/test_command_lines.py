"""The command-line corpus: bad command lines get one exit status each (harness.exitcodes) and a
message naming what is wrong (and the file, where there is one), never a traceback.

Each entry: the arguments (``{run}`` a finished run, ``{tmp}`` a scratch folder, ``{key}``/``{pub}``
a key pair), the exit status, and the words of the message.
"""

from __future__ import annotations

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
    "run-profile-is-a-folder": (["run", "--profile", "{tmp}"], exitcodes.BAD_INPUT, "no such file"),
    # verify
    "verify-missing-record": (["verify", "{tmp}/no-run"], exitcodes.BAD_INPUT, "no such record"),
    "verify-empty-folder": (["verify", "{tmp}"], exitcodes.BAD_INPUT, "no record.json or journal.jsonl here"),
    "verify-wrong-digest": (["verify", "{run}", "--digest", "0" * 64], exitcodes.FAIL, "is not the expected"),
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
    return {"run": str(run), "tampered": str(tampered), "nonempty": str(nonempty), "key": str(keys / "lab.key"),
            "pub": str(keys / "lab.key.pub")}


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

    monkeypatch.setattr(run_cmd, "_run_profile", fake_run)
    monkeypatch.setattr(run_cmd, "_judge", lambda pr: None)
    monkeypatch.setattr(run_cmd, "_summary", lambda runs, pre, interrupted: 0)
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
