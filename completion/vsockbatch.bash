# bash completion for vsockbatch, vsockbatch-top and the vsockbatch
# benchmark programs.  Options come from each program's own --help
# (bash-completion's _parse_help), so they cannot drift from it; only
# the values of a few options are listed here.

_vsockbatch()
{
	local cur prev words cword
	_init_completion || return

	local prog=${words[0]##*/} cmd="" i
	if [[ $prog == vsockbatch-top ]]; then
		cmd=top
	else
		for ((i = 1; i < cword; i++)); do
			if [[ ${words[i]} != -* ]]; then
				cmd=${words[i]}
				break
			fi
		done
	fi
	if [[ -z $cmd ]]; then
		local cmds
		cmds=$("$1" --help 2>/dev/null |
			sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
		COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
		return
	fi

	# Values.  -b is --btf to probe, --base to compare, --batch to top.
	case $cmd:$prev in
	*:-o | *:--output | *:--replay | probe:-b | *:--btf | \
	compare:-b | *:--base | compare:-p | *:--patched)
		_filedir
		return
		;;
	*:-m | *:--mode)
		COMPREPLY=($(compgen -W 'light full' -- "$cur"))
		return
		;;
	# -s sorts in top, samples in record and export
	top:-s | *:--sort)
		COMPREPLY=($(compgen -W 'pkts mb batches len hold deferred' -- "$cur"))
		return
		;;
	*:-s | *:--sample)
		COMPREPLY=($(compgen -W '1 2 4 8 16 32 64 128 256 512 1024' -- "$cur"))
		return
		;;
	*:--duty)
		COMPREPLY=($(compgen -W '1 8 16 32 64' -- "$cur"))
		return
		;;
	*:-d | *:--duration | *:-i | *:--interval | *:-C | *:--cpus | \
	*:-n | *:--count | *:-l | *:--label | *:--level | *:--noise | \
	*:--seed | *:--iters)
		return	# a number or KEY=VALUE: nothing to offer
		;;
	esac

	if [[ $cur == -* ]]; then
		local help
		if [[ $prog == vsockbatch-top ]]; then
			help=$(_parse_help "$1")
		else
			help=$(_parse_help "$1" "$cmd --help")
		fi
		COMPREPLY=($(compgen -W "$help" -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
		return
	fi
	case $cmd in
	report | advise | compare)
		_filedir json
		;;
	esac
} &&
	complete -F _vsockbatch vsockbatch vsockbatch-top

# The benchmarks take GNU-style long options only: bash-completion's
# _longopt reads them from --help.
complete -F _longopt vb-sender vb-recv vb-pingpong vb-mark
