"""Run a composite GitHub Action's steps in order, as the runner does, on this machine.

Each step's ``env:`` is evaluated (``${{ inputs.X }}``, ``${{ steps.ID.outputs.Y }}``, ``${{ github.action_path }}``),
its ``run:`` script goes to ``bash --noprofile --norc -eo pipefail`` (GitHub's ``shell: bash``) with
``GITHUB_ENV``, ``GITHUB_PATH`` and a ``GITHUB_OUTPUT`` file of its own; what earlier steps wrote to
``GITHUB_ENV`` and ``GITHUB_PATH`` applies to later ones; the first failing step ends the run. The action's
``outputs:`` are evaluated at the end. Only what plain-shell composite actions use is supported: a step with
``uses:`` or ``if:`` is refused.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPR = re.compile(r"\$\{\{\s*([a-z_]+)\.([A-Za-z0-9_.-]+)\s*\}\}")


@dataclass
class ActionRun:
    code: int
    """The exit code of the last step that ran (0: every step passed)."""
    outputs: dict[str, str]
    """The action's outputs."""
    env: dict[str, str]
    """What the steps wrote to ``GITHUB_ENV`` (what later steps of the job see)."""
    path: list[str]
    """What the steps wrote to ``GITHUB_PATH``, in order."""
    log: str = ""
    """Every step's stdout and stderr."""
    steps: dict[str, dict[str, str]] = field(default_factory=dict)


def _read_pairs(path: Path) -> dict[str, str]:
    pairs: dict[str, str] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if "=" in line:
                key, _, value = line.partition("=")
                pairs[key] = value
    return pairs


def _expand(text: str, context: Mapping[str, Any]) -> str:
    def value(match: re.Match[str]) -> str:
        scope, dotted = match.group(1), match.group(2)
        node: Any = context.get(scope, {})
        for part in dotted.split("."):
            node = node.get(part, "") if isinstance(node, Mapping) else ""
        return str(node)

    return _EXPR.sub(value, text)


def run_action(
    action: Path, inputs: Mapping[str, str], *, cwd: Path, env: Mapping[str, str], workdir: Path, runner_temp: Path
) -> ActionRun:
    """Run the steps of the composite action *action* (its folder is ``github.action_path``)."""
    doc = yaml.safe_load(action.read_text(encoding="utf-8"))
    assert doc["runs"]["using"] == "composite"
    given = {name: str(spec.get("default", "")) for name, spec in doc.get("inputs", {}).items()}
    unknown = set(inputs) - set(given)
    assert not unknown, f"not inputs of the action: {sorted(unknown)}"
    given.update(inputs)
    workdir.mkdir(parents=True, exist_ok=True)
    github_env, github_path = workdir / "github_env", workdir / "github_path"
    github_env.touch()
    github_path.touch()
    context: dict[str, Any] = {"inputs": given, "steps": {}, "github": {"action_path": str(action.parent)}}
    log: list[str] = []
    code = 0
    for index, step in enumerate(doc["runs"]["steps"]):
        assert "uses" not in step, "plain shell steps only"
        assert "if" not in step, "plain shell steps only"
        assert step.get("shell") == "bash"
        output = workdir / f"output-{index}"
        output.touch()
        script = workdir / f"step-{index}.sh"
        script.write_text(step["run"], encoding="utf-8")
        added = [line for line in github_path.read_text(encoding="utf-8").splitlines() if line]
        step_env = {
            **env,
            **_read_pairs(github_env),
            **{k: _expand(str(v), context) for k, v in step.get("env", {}).items()},
            "GITHUB_ENV": str(github_env),
            "GITHUB_PATH": str(github_path),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_ACTION_PATH": str(action.parent),
            "RUNNER_TEMP": str(runner_temp),
        }
        step_env["PATH"] = os.pathsep.join([*reversed(added), env.get("PATH", os.defpath)])
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=cwd,
            env=step_env,
            capture_output=True,
            text=True,
            check=False,
        )
        log.append(f"--- step {step.get('id', index)}\n{done.stdout}{done.stderr}")
        context["steps"][step.get("id", str(index))] = {"outputs": _read_pairs(output)}
        code = done.returncode
        if code != 0:
            break
    outputs = {name: _expand(str(spec.get("value", "")), context) for name, spec in doc.get("outputs", {}).items()}
    return ActionRun(
        code=code,
        outputs=outputs,
        env=_read_pairs(github_env),
        path=[line for line in github_path.read_text(encoding="utf-8").splitlines() if line],
        log="".join(log),
        steps={k: v["outputs"] for k, v in context["steps"].items()},
    )
