module github.com/toolerr/toolerr

go 1.26

toolchain go1.26.8

require github.com/extism/go-pdk v1.1.3
