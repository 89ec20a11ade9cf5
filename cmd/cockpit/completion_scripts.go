package main

// completionScripts are the scripts `cockpit completion SHELL` prints. Each one asks the
// cockpit it completes (`cockpit __complete WORD…`) what may come next, so verbs, flags,
// broker keys and review ids are those of that build and that root; an answer of ":files"
// or ":dirs" hands the word to the shell's own file completion.
var completionScripts = map[string]string{
	"bash": `# bash completion for cockpit: source <(cockpit completion bash)
_cockpit_complete() {
    local cur="${COMP_WORDS[COMP_CWORD]}" out line
    out="$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" || return 0
    COMPREPLY=()
    case "$out" in
    :files)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return 0 ;;
    :dirs)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
        return 0 ;;
    esac
    while IFS= read -r line; do
        [ -n "$line" ] && COMPREPLY+=("${line%%$'\t'*}")
    done <<<"$out"
    return 0
}
complete -F _cockpit_complete cockpit
`,
	"zsh": `#compdef cockpit
# zsh completion for cockpit: source <(cockpit completion zsh), or save it as _cockpit in $fpath
_cockpit() {
    local out line
    local -a cands
    out="$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null)" || return 1
    case "$out" in
    :files) _files; return ;;
    :dirs) _files -/; return ;;
    esac
    for line in "${(@f)out}"; do
        [[ -z "$line" ]] && continue
        if [[ "$line" == *$'\t'* ]]; then
            cands+=("${${line%%$'\t'*}//:/\\:}:${line#*$'\t'}")
        else
            cands+=("${line//:/\\:}")
        fi
    done
    _describe -t values cockpit cands
}
if [[ "${funcstack[1]}" == "_cockpit" ]]; then
    _cockpit "$@"
else
    compdef _cockpit cockpit
fi
`,
	"fish": `# fish completion for cockpit: cockpit completion fish | source
function __cockpit_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l bin $tokens[1]
    set -e tokens[1]
    set -l out ($bin __complete $tokens "$cur" 2>/dev/null)
    or return
    switch "$out[1]"
        case ':files'
            __fish_complete_path "$cur"
        case ':dirs'
            __fish_complete_directories "$cur"
        case '*'
            printf '%s\n' $out
    end
end
complete -c cockpit -f -a '(__cockpit_complete)'
`,
}
