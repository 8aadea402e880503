# readme-pages.bash: which files of a copy of the workbook are its READMEs,
# for the tests that read what they show (the readme-*.bats files): the top
# README.md, the pages of docs/ (the instructor's guide; a handout keeps only
# the learner's) and each step's README.md. Sourced; defines a function only.

# readme_pages ROOT: those of ROOT that exist, relative to ROOT, one a line.
readme_pages() {
    local page
    for page in README.md docs/*.md [0-9][0-9]-*/README.md; do
        [ -f "$1/$page" ] && echo "$page"
    done
    return 0
}
