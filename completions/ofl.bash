# bash completion for ofl(1) and the ofl commands.
#
# The options of each command sit in one list, _ofl_opts_CMD.  An option
# followed by "=" takes an argument ("==": two arguments).  Arguments are
# completed by _ofl_optarg; positional arguments by _ofl_positional.

_ofl_opts_capture='
	--changes
	--combined=
	-H= --head=
	-h --help
	--intent=
	-j --json
	-l= --label=
	-q --quiet
	-S= --session=
	--no-progress
	--no-redact
	-s= --store=
	-T= --threshold=
	-t= --ttl=
	--tail=
	-V --version
	-x= --exec=
	--'
_ofl_opts_extract='
	--arg==
	--argjson==
	-b= --bytes=
	-C= --context=
	-c --compact-output
	--color
	-e= --regexp=
	--errors
	-h --help
	-i --ignore-case
	-j --json
	--limit=
	-m= --max-bytes=
	--member=
	--memory-limit=
	--name=
	--role=
	-n= --lines=
	--no-pager
	-r --raw-output
	--skip=
	--template=
	--no-redact
	-s= --store=
	--time-limit=
	-V --version'
_ofl_opts_gc='
	--all
	--check
	--grace=
	-h --help
	-j --json
	--label=
	--max-size=
	--dry-run
	--older-than=
	--pin=
	--purge=
	--repair
	--session=
	--set=
	--settings
	-s= --store=
	--stats
	--unpin=
	-V --version
	-v --verbose
	--wait'
_ofl_opts_index='
	--check
	-f --force
	-h --help
	--pending
	-q --quiet
	--rebuild
	-s= --store=
	-V --version
	-v --verbose'
_ofl_opts_mcp='
	--combined=
	-H= --head=
	-h --help
	--jobs=
	--max-binary=
	--max-line=
	--name=
	--no-tools
	-S= --session=
	-s= --store=
	-T= --threshold=
	-t= --ttl=
	--tail=
	--timeout=
	-V --version
	--'
_ofl_opts_diff='
	-h --help
	-j --json
	-m= --max-bytes=
	--no-redact
	-s= --store=
	-V --version'
_ofl_opts_schema='
	-c --compact
	-h --help
	-J --json-schema
	-j --json
	-k= --kind=
	-l --lenient
	-m= --max-bytes=
	--no-pager
	--shape
	--no-redact
	-s= --store=
	-V --version'
_ofl_opts_search='
	-a --all
	--before=
	--color
	--fts
	-h --help
	-j --json
	-k= --kind=
	-l= --label=
	-m= --max-bytes=
	--meta
	-n= --limit=
	--recap
	-q --quiet
	-S= --session=
	--no-pager
	--no-redact
	-s= --store=
	--since=
	-V --version'
_ofl_opts_sh='
	-c=
	-h --help
	-V --version'
_ofl_opts_setup='
	--config=
	-h --help
	--no-hook
	--print
	--server=
	--uninstall
	--'

_ofl_commands='capture extract index schema search gc mcp diff setup'
_ofl_kinds='json ndjson csv tsv markdown html diff log text binary archive
	compressed empty table snapshot'

# _ofl_arity CMD WORD: print how many arguments the option WORD takes.
_ofl_arity()
{
	local var="_ofl_opts_$1" w=$2 o n i c
	local -a list
	read -r -d '' -a list <<<"${!var}"
	if [[ $w == --* ]]; then
		[[ $w == *=* ]] && { echo 0; return; }
		for o in "${list[@]}"; do
			n=${o%%=*}
			if [[ $n == "$w" ]]; then
				echo $(( ${#o} - ${#n} ))
				return
			fi
		done
		echo 0
		return
	fi
	# A bundle of short options: the first that takes an argument takes
	# the rest of the word, or the next word if it is last.
	for (( i = 1; i < ${#w}; i++ )); do
		c="-${w:i:1}"
		for o in "${list[@]}"; do
			if [[ $o == "$c"=* ]]; then
				(( i == ${#w} - 1 )) && echo 1 || echo 0
				return
			fi
		done
	done
	echo 0
}

# _ofl_ids STORE: recent artifact IDs, or nothing.
_ofl_ids()
{
	local p
	p=$(type -P ofl-search) || return 0
	if [[ -n $1 ]]; then
		"$p" -q -n 20 -s "$1" </dev/null 2>/dev/null
	else
		"$p" -q -n 20 </dev/null 2>/dev/null
	fi
	return 0
}

# _ofl_optarg CMD OPTION CUR STORE: complete the argument of OPTION.
_ofl_optarg()
{
	case $1:$2 in
	*:-s|*:--store)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$3")) ;;
	search:-k|search:--kind)
		COMPREPLY=($(compgen -W "$_ofl_kinds" -- "$3")) ;;
	schema:-k|schema:--kind)
		COMPREPLY=($(compgen -W 'json ndjson csv tsv table' -- "$3")) ;;
	extract:--color|search:--color)
		COMPREPLY=($(compgen -W 'auto always never' -- "$3")) ;;
	capture:-e|capture:--exec|sh:-c)
		COMPREPLY=($(compgen -c -- "$3")) ;;
	gc:--purge|gc:--pin|gc:--unpin)
		COMPREPLY=($(compgen -W "$(_ofl_ids "$4")" -- "$3")) ;;
	gc:--set)
		COMPREPLY=($(compgen -W 'ttl= max-size= grace= auto-gc=' -- "$3"))
		compopt -o nospace 2>/dev/null ;;
	*)
		COMPREPLY=() ;;
	esac
}

# _ofl_positional CMD N CUR STORE: complete the N-th (0-based) operand.
_ofl_positional()
{
	case $1 in
	extract)
		(( $2 == 0 )) || return 0
		COMPREPLY=($(compgen -W "$(_ofl_ids "$4")" -- "$3")) ;;
	index|schema|search)
		COMPREPLY=($(compgen -W "$(_ofl_ids "$4")" -- "$3")) ;;
	diff)
		(( $2 < 2 )) || return 0
		COMPREPLY=($(compgen -W "$(_ofl_ids "$4")" -- "$3")) ;;
	esac
}

# _ofl_words: the words into _ofl_w and the current one into _ofl_cw, with
# "--opt=value" rejoined where bash split it at "=".
_ofl_words()
{
	local i w n
	_ofl_w=()
	_ofl_cw=0
	for (( i = 0; i < ${#COMP_WORDS[@]}; i++ )); do
		w=${COMP_WORDS[i]}
		n=${#_ofl_w[@]}
		if [[ $w == = ]] && (( n > 0 )) &&
		    [[ ${_ofl_w[n-1]} == --?* && ${_ofl_w[n-1]} != *=* ]]; then
			_ofl_w[n-1]+==
			(( i == COMP_CWORD )) && _ofl_cw=$(( n - 1 ))
			if (( i + 1 < ${#COMP_WORDS[@]} )); then
				(( i++ ))
				_ofl_w[n-1]+=${COMP_WORDS[i]}
				(( i == COMP_CWORD )) && _ofl_cw=$(( n - 1 ))
			fi
			continue
		fi
		(( i == COMP_CWORD )) && _ofl_cw=$n
		_ofl_w+=("$w")
	done
}

# _ofl_complete CMD START: complete for ofl-CMD whose name is word START.
_ofl_complete()
{
	local cmd=$1 start=$2 var="_ofl_opts_$1"
	local cur=${_ofl_w[_ofl_cw]} w i skip=0 pos=0 store= opt=
	local -a list

	[[ -n ${!var+x} ]] || return 0
	read -r -d '' -a list <<<"${!var}"
	for (( i = start + 1; i < _ofl_cw; i++ )); do
		w=${_ofl_w[i]}
		if (( skip > 0 )); then
			[[ $opt == -s || $opt == --store ]] && store=$w
			(( skip-- ))
			continue
		fi
		case $w in
		--)
			if [[ $cmd == capture || $cmd == mcp ]]; then
				if declare -F _command_offset >/dev/null &&
				    (( ${#_ofl_w[@]} == ${#COMP_WORDS[@]} )); then
					_command_offset $(( i + 1 ))
				elif (( i + 1 == _ofl_cw )); then
					COMPREPLY=($(compgen -c -- "$cur"))
				else
					compopt -o default 2>/dev/null
				fi
				return 0
			fi
			(( pos += _ofl_cw - i - 1 ))
			_ofl_positional "$cmd" "$pos" "$cur" "$store"
			return 0 ;;
		--store=*)
			store=${w#--store=} ;;
		-s?*)
			store=${w#-s} ;;
		-?*)
			opt=$w
			skip=$(_ofl_arity "$cmd" "$w") ;;
		*)
			(( pos++ )) ;;
		esac
	done

	if (( skip > 0 )); then
		_ofl_optarg "$cmd" "$opt" "$cur" "$store"
		return 0
	fi
	case $cur in
	--*=*)
		_ofl_optarg "$cmd" "${cur%%=*}" "${cur#*=}" "$store"
		# Where bash breaks words at "=", it replaces only the value.
		if [[ $COMP_WORDBREAKS != *=* ]]; then
			COMPREPLY=("${COMPREPLY[@]/#/${cur%%=*}=}")
		fi ;;
	-*)
		COMPREPLY=($(compgen -W "${list[*]//=/}" -- "$cur")) ;;
	*)
		_ofl_positional "$cmd" "$pos" "$cur" "$store" ;;
	esac
	return 0
}

# ofl-CMD ...
_ofl_tool()
{
	local cmd=${COMP_WORDS[0]##*/}

	COMPREPLY=()
	_ofl_words
	_ofl_complete "${cmd#ofl-}" 0
}

# ofl CMD ...
_ofl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} c found=

	COMPREPLY=()
	if (( COMP_CWORD == 1 )); then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '-h --help -V --version' -- "$cur"))
			return 0
		fi
		for c in $_ofl_commands; do
			type -P "ofl-$c" >/dev/null && found+=" $c"
		done
		type -P ofl-search >/dev/null && found+=" list ls"
		COMPREPLY=($(compgen -W "help$found" -- "$cur"))
		return 0
	fi
	case ${COMP_WORDS[1]} in
	help)
		(( COMP_CWORD == 2 )) &&
		    COMPREPLY=($(compgen -W "$_ofl_commands" -- "$cur")) ;;
	-*)
		;;
	list|ls)
		# The listing: ofl-search's options, no operand.
		[[ $cur == -* || ${COMP_WORDS[COMP_CWORD-1]} == -* ]] && {
			_ofl_words
			_ofl_complete search 1
		} ;;
	*)
		_ofl_words
		_ofl_complete "${COMP_WORDS[1]}" 1 ;;
	esac
	return 0
}

complete -F _ofl ofl
complete -F _ofl_tool ofl-capture ofl-extract ofl-gc ofl-index ofl-mcp \
    ofl-schema ofl-search ofl-sh ofl-diff
