# fish completion for ofl(1) and the ofl commands.
#
# The options of each command sit in one block of __ofl_complete lines:
# "__ofl_complete CMD ARGS" completes ARGS both for ofl-CMD and for
# "ofl CMD".

# __ofl_using CMD: the line is "ofl CMD ...".
function __ofl_using
    set -l tokens (commandline -opc)
    test (count $tokens) -ge 2; and test "$tokens[2]" = "$argv[1]"
end

# __ofl_after_dashdash: a "--" came before the current token.
function __ofl_after_dashdash
    contains -- -- (commandline -opc)
end

# __ofl_subcommand: complete the command line that follows "--".
function __ofl_subcommand
    set -l tokens (commandline -opc) (commandline -ct)
    set -l i (contains -i -- -- $tokens)
    or return
    __fish_complete_subcommand --commandline $tokens[(math $i + 1)..-1]
end

# __ofl_ids: recent artifact IDs, from the store named on the line if any.
function __ofl_ids
    set -l tokens (commandline -opc)
    set -l store
    set -l i 1
    while test $i -le (count $tokens)
        switch $tokens[$i]
            case -s --store
                set store -s $tokens[(math $i + 1)]
            case '--store=*'
                set store -s (string replace -- --store= '' $tokens[$i])
        end
        set i (math $i + 1)
    end
    command -q ofl-search; or return
    ofl-search -q -n 20 $store </dev/null 2>/dev/null
end

# __ofl_complete CMD ARGS: complete ARGS for ofl-CMD and for "ofl CMD".
function __ofl_complete
    set -l cmd $argv[1]
    set -e argv[1]
    complete -c ofl-$cmd -n 'not __ofl_after_dashdash' $argv
    complete -c ofl -n "__ofl_using $cmd; and not __ofl_after_dashdash" $argv
end

set -l __ofl_kinds json ndjson csv tsv markdown html diff log text binary \
    archive compressed empty table snapshot

# ofl
complete -c ofl -f
complete -c ofl -n __fish_use_subcommand -s h -l help -d 'List the commands'
complete -c ofl -n __fish_use_subcommand -s V -l version -d 'Print the version'
complete -c ofl -n __fish_use_subcommand -a help \
    -d 'List the commands, or show the manual of one'
complete -c ofl -n '__fish_use_subcommand; and command -q ofl-search' \
    -a 'list ls' -d 'List the artifacts, newest first'
for c in list ls
    complete -c ofl -n "__ofl_using $c" -s j -l json -d 'JSON Lines output'
    complete -c ofl -n "__ofl_using $c" -s q -l quiet -d 'IDs only'
    complete -c ofl -n "__ofl_using $c" -s k -l kind -x -a "$__ofl_kinds" -d 'Only artifacts of this kind'
    complete -c ofl -n "__ofl_using $c" -s l -l label -x -d 'Only artifacts with this label'
    complete -c ofl -n "__ofl_using $c" -s n -l limit -x -d 'List at most this many'
    complete -c ofl -n "__ofl_using $c" -s S -l session -x -d 'Only artifacts of this session'
    complete -c ofl -n "__ofl_using $c" -s s -l store -x -a '(__fish_complete_directories)' -d 'Store directory'
    complete -c ofl -n "__ofl_using $c" -l since -x -d 'Only those made within this age'
    complete -c ofl -n "__ofl_using $c" -l before -x -d 'Only those made more than this age ago'
end
for c in 'capture:store command output; print it when small, else a notice' \
    'extract:exact evidence: jq filters, line ranges, regex, errors' \
    'gc:expire old artifacts and keep the store within a budget' \
    'index:chunk an artifact by its kind and index it for search' \
    'mcp:offload large MCP tool results' \
    'schema:describe the structure of JSON, NDJSON and CSV artifacts' \
    'search:list artifacts, or rank snippets that match a query' \
    'diff:say what changed between two artifacts'
    set -l name (string split -m 1 : -- $c)[1]
    set -l desc (string split -m 1 : -- $c)[2]
    complete -c ofl -n "__fish_use_subcommand; and command -q ofl-$name" \
        -a $name -d $desc
    complete -c ofl -n '__ofl_using help' -a $name -d $desc
end

# ofl-capture
complete -c ofl-capture -f
__ofl_complete capture -l combined -x -d 'With several -x, offload the largest outputs until the rest fits (tokens)'
__ofl_complete capture -s x -l exec -x -a '(__fish_complete_command)' -d 'Run a command through sh -c'
__ofl_complete capture -s H -l head -x -d 'Bytes of the head in the preview'
__ofl_complete capture -s h -l help -d 'Print the usage'
__ofl_complete capture -l changes -d 'Lead the notice with what changed since the last run'
__ofl_complete capture -l intent -x -d 'Show the snippets that best match this instead of the preview'
__ofl_complete capture -s j -l json -d 'Print one JSON object for each artifact'
__ofl_complete capture -s l -l label -x -d 'Label the artifact'
__ofl_complete capture -s q -l quiet -d 'Print only the reference when offloaded'
__ofl_complete capture -s S -l session -x -d 'Session of the artifact'
__ofl_complete capture -l no-progress -d 'No progress line on a terminal'
__ofl_complete capture -l no-redact -d 'Show secrets in the output and notice unmasked'
__ofl_complete capture -s s -l store -x -a '(__fish_complete_directories)' -d 'Store directory'
__ofl_complete capture -s T -l threshold -x -d 'Offload output above this many tokens'
__ofl_complete capture -s t -l ttl -x -a '30s 15m 3h 7d 2w' -d 'Expire after this long'
__ofl_complete capture -l tail -x -d 'Bytes of the tail in the preview'
__ofl_complete capture -s V -l version -d 'Print the version'
complete -c ofl-capture -n __ofl_after_dashdash -x -a '(__ofl_subcommand)'
complete -c ofl -n '__ofl_using capture; and __ofl_after_dashdash' -x -a '(__ofl_subcommand)'

# ofl-extract
complete -c ofl-extract -f
__ofl_complete extract -l arg -x -d 'Bind $name to a string for the filter (name value)'
__ofl_complete extract -l argjson -x -d 'Bind $name to a JSON value for the filter (name json)'
__ofl_complete extract -s b -l bytes -x -d 'A byte range'
__ofl_complete extract -s C -l context -x -d 'Lines of context around matches'
__ofl_complete extract -s c -l compact-output -d 'Compact JSON output'
__ofl_complete extract -s e -l regexp -x -d 'Lines that match a regular expression'
__ofl_complete extract -l errors -d 'Error blocks and failing tests'
__ofl_complete extract -s h -l help -d 'Print the usage'
__ofl_complete extract -s i -l ignore-case -d 'Ignore case in the regular expression'
__ofl_complete extract -s j -l json -d 'JSON Lines output'
__ofl_complete extract -l limit -x -d 'Print at most this many results or blocks'
__ofl_complete extract -s m -l max-bytes -x -d 'Output budget (0: no limit)'
__ofl_complete extract -l member -x -d 'A member of an archive artifact'
__ofl_complete extract -l role -x -a 'button link textbox searchbox combobox checkbox radio heading row cell listitem navigation form' -d 'A browser snapshot'"'"'s elements of this role'
__ofl_complete extract -l name -x -d 'Elements whose name holds this text'
__ofl_complete extract -l memory-limit -x -d 'Memory of a filter or regex (0: none)'
__ofl_complete extract -l time-limit -x -d 'CPU seconds of a filter or regex (0: none)'
__ofl_complete extract -s n -l lines -x -d 'A line range (A-B, A+N, -N, A-)'
__ofl_complete extract -s r -l raw-output -d 'Raw strings, not JSON'
__ofl_complete extract -l skip -x -d 'Skip this many results or blocks'
__ofl_complete extract -l template -x -d 'The lines of one log template'
__ofl_complete extract -l no-redact -d 'Show secrets unmasked'
__ofl_complete extract -l color -x -a 'auto always never' -d 'Line numbers in color'
__ofl_complete extract -l no-pager -d 'Do not page output longer than the screen'
__ofl_complete extract -s s -l store -x -a '(__fish_complete_directories)' -d 'Store directory'
__ofl_complete extract -s V -l version -d 'Print the version'
__ofl_complete extract -a '(__ofl_ids)' -d 'Artifact'

# ofl-gc
complete -c ofl-gc -f
__ofl_complete gc -l all -d 'Remove every finished artifact'
__ofl_complete gc -l check -d 'Verify the store'
__ofl_complete gc -l grace -x -d 'The budget keeps artifacts younger than this (5m)'
__ofl_complete gc -s h -l help -d 'Print the usage'
__ofl_complete gc -s j -l json -d 'JSON Lines output'
__ofl_complete gc -l label -x -d 'Remove every artifact with this label'
__ofl_complete gc -l max-size -x -d 'Size budget for this run (2G, 500M)'
__ofl_complete gc -l dry-run -d 'Say what would go, remove nothing'
__ofl_complete gc -l older-than -x -d 'Remove artifacts older than this (3d, 12h)'
__ofl_complete gc -l pin -x -a '(__ofl_ids)' -d 'Never expire it or take it for the budget'
__ofl_complete gc -l purge -x -a '(__ofl_ids)' -d 'Remove this artifact'
__ofl_complete gc -l repair -d 'Verify and fix what can be fixed'
__ofl_complete gc -l session -x -d 'Remove every artifact of this session'
__ofl_complete gc -l set -x -a 'ttl= max-size= grace= auto-gc=' -d 'Change a setting'
__ofl_complete gc -l settings -d 'Print the settings of the store'
__ofl_complete gc -s s -l store -x -a '(__fish_complete_directories)' -d 'Store directory'
__ofl_complete gc -l stats -d 'What was kept out, per day and label'
__ofl_complete gc -l unpin -x -a '(__ofl_ids)' -d 'Undo --pin'
__ofl_complete gc -s V -l version -d 'Print the version'
__ofl_complete gc -s v -l verbose -d 'List what is removed'
__ofl_complete gc -l wait -d 'Wait for a running gc'

# ofl-index
complete -c ofl-index -f
__ofl_complete index -l check -d 'Check the index of the whole store'
__ofl_complete index -l pending -d 'Index every artifact not indexed yet'
__ofl_complete index -l rebuild -d 'Drop the whole index and index every artifact again'
__ofl_complete index -s f -l force -d 'Drop the index of the artifact and make it again'
__ofl_complete index -s h -l help -d 'Print the usage'
__ofl_complete index -s q -l quiet -d 'Print nothing on success'
__ofl_complete index -s s -l store -x -a '(__fish_complete_directories)' -d 'Store directory'
__ofl_complete index -s V -l version -d 'Print the version'
__ofl_complete index -s v -l verbose -d 'Say what was indexed'
__ofl_complete index -a '(__ofl_ids)' -d 'Artifact'

# ofl-setup
complete -c ofl-setup -f
__ofl_complete setup -a 'codex gemini cursor opencode' -d 'Agent harness'
__ofl_complete setup -l server -x -d 'Name of the server to wrap or remove'
__ofl_complete setup -l uninstall -d 'Remove the server'
__ofl_complete setup -l no-hook -d 'Leave the shell hook alone'
__ofl_complete setup -l print -d 'Print the file as it would be'
__ofl_complete setup -l config -r -d 'The harness file to edit'
__ofl_complete setup -s h -l help -d 'Print the usage'

# ofl-mcp
complete -c ofl-mcp -f
__ofl_complete mcp -l combined -x -d 'Budget of tool calls in flight together (tokens)'
__ofl_complete mcp -s H -l head -x -d 'Bytes of the head in the preview'
__ofl_complete mcp -s h -l help -d 'Print the usage'
__ofl_complete mcp -l max-binary -x -d 'Offload images and blobs above this size'
__ofl_complete mcp -l max-line -x -d 'Drop longer messages of the server'
__ofl_complete mcp -l jobs -x -d 'Run at most this many ofl tools at once'
__ofl_complete mcp -l name -x -d 'Server name in labels'
__ofl_complete mcp -l no-tools -d 'Add no ofl tools to the server list'
__ofl_complete mcp -s S -l session -x -d 'Session of the artifacts'
__ofl_complete mcp -s s -l store -x -a '(__fish_complete_directories)' -d 'Store directory'
__ofl_complete mcp -s T -l threshold -x -d 'Offload results above this many tokens'
__ofl_complete mcp -s t -l ttl -x -a '30s 15m 3h 7d 2w' -d 'Expire after this long'
__ofl_complete mcp -l tail -x -d 'Bytes of the tail in the preview'
__ofl_complete mcp -l timeout -x -d 'Answer an error when the server is silent this long (seconds)'
__ofl_complete mcp -s V -l version -d 'Print the version'
complete -c ofl-mcp -n __ofl_after_dashdash -x -a '(__ofl_subcommand)'
complete -c ofl -n '__ofl_using mcp; and __ofl_after_dashdash' -x -a '(__ofl_subcommand)'

# ofl-diff
complete -c ofl-diff -f
__ofl_complete diff -s h -l help -d 'Print the usage'
__ofl_complete diff -s j -l json -d 'JSON Lines: a summary, then a change a line'
__ofl_complete diff -s m -l max-bytes -x -d 'Cap the output at this size'
__ofl_complete diff -l no-redact -d 'Show secrets unmasked'
__ofl_complete diff -s s -l store -x -a '(__fish_complete_directories)' -d 'Store directory'
__ofl_complete diff -s V -l version -d 'Print the version'
__ofl_complete diff -a '(__ofl_ids)' -d 'Artifact'

# ofl-schema
complete -c ofl-schema -f
__ofl_complete schema -s c -l compact -d 'With -J, on one line'
__ofl_complete schema -s h -l help -d 'Print the usage'
__ofl_complete schema -s J -l json-schema -d 'A JSON Schema as genson writes it'
__ofl_complete schema -s j -l json -d 'The shape as JSON Lines, one path per line'
__ofl_complete schema -s k -l kind -x -a 'json ndjson csv tsv table' -d 'Read as this kind'
__ofl_complete schema -s l -l lenient -d 'On invalid input, describe what parsed'
__ofl_complete schema -s m -l max-bytes -x -d 'Cap the shape at this size'
__ofl_complete schema -l shape -d 'A compact typed outline'
__ofl_complete schema -l no-pager -d 'Do not page output longer than the screen'
__ofl_complete schema -l no-redact -d 'Show secrets in examples unmasked'
__ofl_complete schema -s s -l store -x -a '(__fish_complete_directories)' -d 'Store directory'
__ofl_complete schema -s V -l version -d 'Print the version'
__ofl_complete schema -a '(__ofl_ids)' -d 'Artifact'

# ofl-search
complete -c ofl-search -f
__ofl_complete search -s a -l all -d 'Search the whole store, do not read stdin'
__ofl_complete search -l before -x -d 'Created before this age'
__ofl_complete search -l recap -d 'What the session offloaded and saved'
__ofl_complete search -s m -l max-bytes -x -d 'Bytes of output for all hits'
__ofl_complete search -l fts -d 'The query is FTS5 syntax'
__ofl_complete search -l meta -d 'The operands are IDs: list those artifacts'
__ofl_complete search -l color -x -a 'auto always never' -d 'Color matches'
__ofl_complete search -l no-pager -d 'Do not page output longer than the screen'
__ofl_complete search -s h -l help -d 'Print the usage'
__ofl_complete search -s j -l json -d 'JSON Lines output'
__ofl_complete search -s k -l kind -x -a "$__ofl_kinds" -d 'Only artifacts of this kind'
__ofl_complete search -s l -l label -x -d 'Only artifacts with this label'
__ofl_complete search -s n -l limit -x -d 'At most this many results'
__ofl_complete search -s q -l quiet -d 'Print only IDs'
__ofl_complete search -s S -l session -x -d 'Only artifacts of this session'
__ofl_complete search -l no-redact -d 'Show secrets unmasked'
__ofl_complete search -s s -l store -x -a '(__fish_complete_directories)' -d 'Store directory'
__ofl_complete search -l since -x -d 'Created within this age'
__ofl_complete search -s V -l version -d 'Print the version'
__ofl_complete search -a '(__ofl_ids)' -d 'Artifact'

# ofl-sh: -c COMMAND [NAME [ARG ...]]; anything else goes to the shell.
__ofl_complete sh -s c -x -a '(__fish_complete_command)' -d 'Run this command under ofl-capture'
__ofl_complete sh -s h -l help -d 'Print the usage'
__ofl_complete sh -s V -l version -d 'Print the version'
