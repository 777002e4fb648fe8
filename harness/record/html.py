"""Rendering the lab report (and its appendix) from a record through a jinja2 template.

The default templates ship with the package (``harness/record/templates/``: ``report.html.j2``,
``appendix.html.j2``, ``report.css``); a lab replaces them with its own letterhead by passing its
own template file (``tablecert report RECORD --template my-lab.html.j2``), which may ``{% extends
"report.html.j2" %}`` and override blocks, or stand alone.  The context is built by
:mod:`harness.record.report` and documented key by key in docs/report.md.

Autoescaping is on for every template: every string that came from a device, a suite, a profile or
an operator is escaped; the only markup passed in is the meter charts (SVG built from escaped text
and integers).  An undefined name in a template is an error, not an empty string, so a lab's template
cannot silently drop a field.  A record that failed verification is never shown as passing: the
page carries a "RECORD FAILED VERIFICATION" banner and the verdict NOT VALID.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from harness.errors import InputError
from harness.record.document import Record
from harness.record.report import appendix_context, build_context

TEMPLATES = Path(__file__).resolve().parent / "templates"
REPORT_TEMPLATE = "report.html.j2"
APPENDIX_TEMPLATE = "appendix.html.j2"


def environment(extra_dir: Path | None = None) -> jinja2.Environment:
    """The template environment: a lab's directory first (when given), then the packaged templates."""
    paths = [str(extra_dir)] if extra_dir is not None else []
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([*paths, str(TEMPLATES)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cls"] = lambda verdict: "v-" + str(verdict).lower().replace(" ", "")
    env.filters["css_string"] = css_string
    return env


def css_string(value: object) -> Markup:
    """A CSS string literal holding ``value`` (anything but letters, digits and ``-_.:/ `` escaped),
    for the page footer inside ``<style>``, where HTML escaping does not apply."""
    body = "".join(c if (c.isalnum() and c.isascii()) or c in " -_.:/" else f"\\{ord(c):x} " for c in str(value))
    return Markup(f'"{body}"')


def _render(name: str, context: Mapping[str, Any], template: Path | None) -> str:
    env = environment(template.parent if template is not None else None)
    try:
        tpl = env.get_template(template.name if template is not None else name)
        return tpl.render(**context)
    except jinja2.TemplateNotFound as exc:
        raise InputError(f"report template {exc.name}: no such file") from None
    except jinja2.TemplateSyntaxError as exc:
        raise InputError(f"{exc.message}", path=exc.filename or str(template), line=exc.lineno) from None
    except jinja2.UndefinedError as exc:
        raise InputError(f"report template {template or name}: {exc.message} (docs/report.md lists the "
                         "context)") from None


def render_html(record: Record, digest: str | None, problems: list[str], *, template: Path | None = None,
                report_number: str | None = None, signed: Mapping[str, Any] | None = None) -> str:
    """The lab report as one HTML document (``problems`` from :func:`harness.record.verification.verify`)."""
    context = build_context(record, digest, problems, report_number=report_number, signed=signed)
    return _render(REPORT_TEMPLATE, context, template)


def render_appendix(record: Record, digest: str | None, problems: list[str], *,
                    report_number: str | None = None) -> str:
    """The appendix: every case's steps, measurements, meter charts and evidence."""
    context = appendix_context(record, build_context(record, digest, problems, report_number=report_number))
    return _render(APPENDIX_TEMPLATE, context, None)
