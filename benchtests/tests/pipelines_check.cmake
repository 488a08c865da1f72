# Validates the CI pipeline files with real validators (cmake -P; docs/ci.md):
#   .gitlab-ci.yml           check-jsonschema, its vendored GitLab CI schema
#   .github/workflows/*.yml  check-jsonschema, its vendored GitHub workflow
#                            schema, and actionlint (.github/actionlint.yaml),
#                            which runs ShellCheck on every `run:` script
#   .ci/ shell scripts       ShellCheck
# Then plants one error at a time in copies of each file (under WORK) and
# requires every validator to reject each copy for the planted reason, so
# the test cannot pass with a validator that accepts anything.
#
# Inputs: SOURCE_DIR, WORK, and the tools' paths CHECK_JSONSCHEMA, ACTIONLINT,
# SHELLCHECK (empty or *-NOTFOUND when not found). The schemas are the ones
# the check-jsonschema package ships; nothing is fetched (--no-cache). A
# missing tool: the checks of the others still run, then the test reports
# itself skipped ("kbench-skip:") naming what to install.

set(gitlab "${SOURCE_DIR}/.gitlab-ci.yml")
set(lint_config "${SOURCE_DIR}/.github/actionlint.yaml")
file(GLOB workflows "${SOURCE_DIR}/.github/workflows/*.yml" "${SOURCE_DIR}/.github/workflows/*.yaml")
# The shell scripts of .ci/ (those starting with a sh/bash #! line).
file(GLOB ci_files "${SOURCE_DIR}/.ci/*")
set(ci_scripts "")
foreach(f IN LISTS ci_files)
  file(STRINGS "${f}" first LIMIT_COUNT 1)
  if(first MATCHES "^#!.*[/ ](ba)?sh$")
    list(APPEND ci_scripts "${f}")
  endif()
endforeach()
foreach(required IN ITEMS "${gitlab}" "${lint_config}")
  if(NOT EXISTS "${required}")
    message(FATAL_ERROR "pipelines check: ${required} does not exist")
  endif()
endforeach()
if(NOT workflows)
  message(FATAL_ERROR "pipelines check: no workflow in ${SOURCE_DIR}/.github/workflows/")
endif()
if(NOT ci_scripts)
  message(FATAL_ERROR "pipelines check: no shell script in ${SOURCE_DIR}/.ci/")
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

set(missing "")
foreach(tool IN ITEMS CHECK_JSONSCHEMA ACTIONLINT SHELLCHECK)
  if(NOT ${tool})
    string(TOLOWER "${tool}" name)
    string(REPLACE "_" "-" name "${name}")
    list(APPEND missing "${name}")
  endif()
endforeach()

# Prints a tool's version, so the log says what validated the files.
function(_kb_show_version tool)
  if(${tool})
    execute_process(COMMAND "${${tool}}" --version OUTPUT_VARIABLE out ERROR_VARIABLE out)
    string(REGEX MATCH "[^\n]*[0-9][.][0-9][^\n]*" line "${out}")
    message("pipelines check: ${${tool}}: ${line}")
  endif()
endfunction()

# Runs a command; sets rc and out (stdout and stderr together) in the caller.
macro(_kb_run)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${SOURCE_DIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
endmacro()

function(_kb_expect_valid what)
  _kb_run(${ARGN})
  if(NOT rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "pipelines check: ${what}: rejected (exit ${rc}); "
      "the validator's words are above")
  endif()
  message("pipelines check: ${what}: valid")
endfunction()

# The validator must exit non-zero and say `reason` (a regex): a rejection
# for another reason would not show that the planted error was seen.
function(_kb_expect_rejected what reason)
  _kb_run(${ARGN})
  if(rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "pipelines check: ${what}: ACCEPTED, but the copy holds a planted "
      "error; the validator does not check what this test relies on")
  endif()
  if(NOT out MATCHES "${reason}")
    message("${out}")
    message(FATAL_ERROR "pipelines check: ${what}: rejected (exit ${rc}), but the output "
      "above does not match '${reason}', the planted error")
  endif()
  message("pipelines check: ${what}: rejected, as it must be")
endfunction()

# Writes `out`: the workflow `file` with `job` inserted as the first job.
# In `job`, <1> <2> <3> stand for one, two and three levels of the file's
# own indentation (read from the line after `jobs:`).
function(_kb_plant_job file out job)
  file(READ "${file}" text)
  if(NOT text MATCHES "\njobs:[ ]*\n(( *#[^\n]*|[ ]*)\n)*( +)[^ #\n]")
    message(FATAL_ERROR "pipelines check: ${file}: no block-style 'jobs:' mapping to plant "
      "a job in")
  endif()
  set(i "${CMAKE_MATCH_3}")
  string(REPLACE "<3>" "${i}${i}${i}" job "${job}")
  string(REPLACE "<2>" "${i}${i}" job "${job}")
  string(REPLACE "<1>" "${i}" job "${job}")
  string(FIND "${text}" "\njobs:" at)
  string(SUBSTRING "${text}" 0 ${at} head)
  string(SUBSTRING "${text}" ${at} -1 tail)
  string(REGEX REPLACE "^\njobs:[ ]*\n" "\njobs:\n${job}" tail "${tail}")
  file(WRITE "${out}" "${head}${tail}")
endfunction()

_kb_show_version(CHECK_JSONSCHEMA)
_kb_show_version(ACTIONLINT)
_kb_show_version(SHELLCHECK)

# --- the files as committed ---------------------------------------------------
set(gitlab_schema --no-cache --builtin-schema vendor.gitlab-ci --data-transform gitlab-ci)
set(github_schema --no-cache --builtin-schema vendor.github-workflows)
set(lint_shell "-shellcheck=")
set(lint_what ", without ShellCheck")
if(SHELLCHECK)
  set(lint_shell "-shellcheck=${SHELLCHECK}")
  set(lint_what " + ShellCheck on the run: scripts")
endif()
set(lint_args -no-color -config-file "${lint_config}" "${lint_shell}" "-pyflakes=")

if(CHECK_JSONSCHEMA)
  _kb_expect_valid(".gitlab-ci.yml (check-jsonschema vendor.gitlab-ci)"
    "${CHECK_JSONSCHEMA}" ${gitlab_schema} "${gitlab}")
  foreach(wf IN LISTS workflows)
    get_filename_component(name "${wf}" NAME)
    _kb_expect_valid("${name} (check-jsonschema vendor.github-workflows)"
      "${CHECK_JSONSCHEMA}" ${github_schema} "${wf}")
  endforeach()
endif()
if(ACTIONLINT)
  foreach(wf IN LISTS workflows)
    get_filename_component(name "${wf}" NAME)
    _kb_expect_valid("${name} (actionlint${lint_what})" "${ACTIONLINT}" ${lint_args} "${wf}")
  endforeach()
endif()
if(SHELLCHECK)
  set(names "")
  foreach(f IN LISTS ci_scripts)
    get_filename_component(name "${f}" NAME)
    list(APPEND names "${name}")
  endforeach()
  list(JOIN names ", " names)
  _kb_expect_valid(".ci/{${names}} (shellcheck)" "${SHELLCHECK}" ${ci_scripts})
endif()

# --- copies with planted errors -----------------------------------------------
if(CHECK_JSONSCHEMA)
  file(READ "${gitlab}" text)
  set(job "\nkbench-planted-error:\n  stage: test\n  script: [\"echo planted\"]\n")
  file(WRITE "${WORK}/gitlab-unknown-key.yml" "${text}${job}  scirpt: [\"echo planted\"]\n")
  file(WRITE "${WORK}/gitlab-bad-when.yml" "${text}${job}  when: sometimes\n")
  file(WRITE "${WORK}/gitlab-bad-needs.yml"
    "${text}${job}  needs: [{job: build, artifacts: maybe}]\n")
  _kb_expect_rejected(".gitlab-ci.yml + a job with an unknown keyword (check-jsonschema)"
    "'scirpt' was unexpected" "${CHECK_JSONSCHEMA}" ${gitlab_schema} "${WORK}/gitlab-unknown-key.yml")
  _kb_expect_rejected(".gitlab-ci.yml + when: sometimes (check-jsonschema)"
    "'sometimes' is not one of" "${CHECK_JSONSCHEMA}" ${gitlab_schema} "${WORK}/gitlab-bad-when.yml")
  _kb_expect_rejected(".gitlab-ci.yml + a malformed needs entry (check-jsonschema)"
    "'maybe' is not of type 'boolean'"
    "${CHECK_JSONSCHEMA}" ${gitlab_schema} "${WORK}/gitlab-bad-needs.yml")
endif()

# One job per planted error, inserted into each workflow: the job's extra
# lines, the validators that must reject it, and the regex they must print.
set(head "<1>kbench-planted-error:\n<2>runs-on: ubuntu-latest\n")
set(steps "<2>steps:\n<3>- run: echo planted\n")
set(plant_unknown_key "${head}<2>timeout: 5\n${steps}")
set(plant_bad_needs "${head}<2>needs: [kbench-no-such-job]\n${steps}")
set(plant_bad_expression "${head}<2>if: \${{ github.event_name == }}\n${steps}")
set(plant_unknown_variable "${head}<2>if: vars.KBENCH_NO_SUCH_VARIABLE == 'true'\n${steps}")
set(plant_unknown_label
  "<1>kbench-planted-error:\n<2>runs-on: [self-hosted, linux, kbench-no-such-label]\n${steps}")
set(plant_shell "${head}<2>steps:\n<3>- run: echo $KBENCH_PLANTED\n")

foreach(wf IN LISTS workflows)
  get_filename_component(name "${wf}" NAME)
  get_filename_component(stem "${wf}" NAME_WE)
  foreach(plant unknown_key bad_needs bad_expression unknown_variable unknown_label shell)
    _kb_plant_job("${wf}" "${WORK}/${stem}-${plant}.yml" "${plant_${plant}}")
  endforeach()
  if(CHECK_JSONSCHEMA)
    _kb_expect_rejected("${name} + a job with an unknown key (check-jsonschema)"
      "'timeout' was unexpected"
      "${CHECK_JSONSCHEMA}" ${github_schema} "${WORK}/${stem}-unknown_key.yml")
  endif()
  if(ACTIONLINT)
    set(lint "${ACTIONLINT}" ${lint_args})
    _kb_expect_rejected("${name} + a job with an unknown key (actionlint)"
      "unexpected key \"timeout\"" ${lint} "${WORK}/${stem}-unknown_key.yml")
    _kb_expect_rejected("${name} + needs of a missing job (actionlint)"
      "needs job \"kbench-no-such-job\" which does not exist" ${lint}
      "${WORK}/${stem}-bad_needs.yml")
    _kb_expect_rejected("${name} + a malformed expression (actionlint)"
      "unexpected end of input" ${lint} "${WORK}/${stem}-bad_expression.yml")
    _kb_expect_rejected("${name} + an undeclared configuration variable (actionlint)"
      "undefined configuration variable" ${lint} "${WORK}/${stem}-unknown_variable.yml")
    _kb_expect_rejected("${name} + an undeclared runner label (actionlint)"
      "label \"kbench-no-such-label\" is unknown" ${lint} "${WORK}/${stem}-unknown_label.yml")
    if(SHELLCHECK)
      _kb_expect_rejected("${name} + an unquoted variable in a run script (actionlint + shellcheck)"
        "SC2086" ${lint} "${WORK}/${stem}-shell.yml")
    endif()
  endif()
endforeach()

if(SHELLCHECK)
  list(GET ci_scripts 0 script)
  file(READ "${script}" text)
  file(WRITE "${WORK}/planted.sh" "${text}\necho $KBENCH_PLANTED\n")
  _kb_expect_rejected("a .ci/ script + an unquoted variable (shellcheck)" "SC2086"
    "${SHELLCHECK}" "${WORK}/planted.sh")
endif()

if(missing)
  list(JOIN missing ", " missing)
  message("kbench-skip: ${missing} not found (.ci/install-deps.sh test installs the pinned "
    "versions: ShellCheck from the distribution, the others from PyPI into a venv); the "
    "checks above, with the tools that were found, passed")
  return()
endif()
message("pipelines check: every pipeline file valid, every planted error rejected")
