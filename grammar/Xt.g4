// Xt.g4: the grammar of the .xt tile language (lexer and parser in one file). The C++ parser is
// generated at build time (grammar/CMakeLists.txt) and never checked in. See docs/language.md.
//
// Design notes:
//  * Newlines are not significant: a statement ends where the expression can no longer continue
//    (`a = b` followed by `c = d` cannot be read as one expression). `;` is accepted but optional.
//  * Types and attribute values share one generic `term` syntax (`memref<?x?xf16, slm>`,
//    `wg_map<sg_layout = [8, 4], sg_data = [32, 32]>`); the frontend's semantic analysis gives the
//    terms their meaning, so its diagnostics can be precise instead of generic syntax errors.
//  * Ops are written as calls (`load_tile(t, padding = 1.0)`); the callee names are not keywords.
//    Only `init_tile` has its own syntax, mirroring the RFC's `init_tile %A[%m, %n]`.
grammar Xt;

file_      : topItem* EOF ;
topItem    : attrDef | kernelDef ;
attrDef    : ATTR_ID '=' term ;
kernelDef  : 'kernel' ID '(' (param (',' param)* ','?)? ')' gridClause? block ;
param      : ID ':' term ;
gridClause : 'grid' '(' expr (',' expr)* ')' ;

block      : '{' stmt* '}' ;
stmt       : ID '=' typedExpr ';'?                                   # assignStmt
           | 'for' ID 'in' expr '..' expr ('step' expr)? block       # forStmt
           | ifStmt                                                  # ifStmtWrap
           | typedExpr ';'?                                          # exprStmt
           ;
ifStmt     : 'if' expr block ('else' (block | ifStmt))? ;

// An expression with an optional type annotation (`zeros() : vector<8x16xf32>`).
typedExpr  : expr (':' term)? ;

expr       : primary                                                 # primaryExpr
           | op=('-' | '!') expr                                     # unaryExpr
           | expr 'as' ID                                            # castExpr
           | expr op=('*' | '/' | '%') expr                          # binaryExpr
           | expr op=('+' | '-') expr                                # binaryExpr
           | expr op=('<' | '<=' | '>' | '>=') expr                  # binaryExpr
           | expr op=('==' | '!=') expr                              # binaryExpr
           | expr op='&&' expr                                       # binaryExpr
           | expr op='||' expr                                       # binaryExpr
           ;

primary    : INT                                                     # intLit
           | FLOAT                                                   # floatLit
           | ('true' | 'false')                                      # boolLit
           | ID '(' (arg (',' arg)* ','?)? ')'                       # callExpr
           | 'init_tile' ID '[' expr (',' expr)* ']' (',' ID '=' '[' (expr (',' expr)*)? ']')*  # initTileExpr
           | ID                                                      # nameExpr
           | ATTR_ID                                                 # attrRefExpr
           | '[' (expr (',' expr)*)? ']'                             # listExpr
           | '(' typedExpr ')'                                       # parenExpr
           ;
arg        : (ID '=')? typedExpr ;

// Types and attribute values.
term       : ID ('<' termArg (',' termArg)* '>')?                    # namedTerm
           | SHAPE                                                   # shapeTerm
           | '-'? INT                                                # intTerm
           | '-'? FLOAT                                              # floatTerm
           | '?'                                                     # dynTerm
           | ATTR_ID                                                 # refTerm
           | '[' (term (',' term)*)? ']'                             # listTerm
           ;
termArg    : (ID '=')? term ;

// ---- lexer ----
KERNEL  : 'kernel' ;
GRID    : 'grid' ;
FOR     : 'for' ;
IN      : 'in' ;
STEP    : 'step' ;
IF      : 'if' ;
ELSE    : 'else' ;
AS      : 'as' ;
TRUE    : 'true' ;
FALSE   : 'false' ;
INIT_TILE : 'init_tile' ;

// `256x32xbf16`, `?x?xf32`, `4x4x128x128xbf16`: dimensions then the element type, as one token
// (otherwise `x32xbf16` would lex as an identifier).
SHAPE   : (([0-9]+ | '?') 'x')+ [a-zA-Z_] [a-zA-Z_0-9]* ;
FLOAT   : [0-9]+ '.' [0-9]+ ([eE] [+-]? [0-9]+)?
        | [0-9]+ [eE] [+-]? [0-9]+ ;
INT     : [0-9]+ ;
ID      : [a-zA-Z_] [a-zA-Z_0-9]* ;
ATTR_ID : '#' [a-zA-Z_] [a-zA-Z_0-9]* ;

DOTDOT  : '..' ;
LE      : '<=' ;
GE      : '>=' ;
EQ      : '==' ;
NE      : '!=' ;
ANDAND  : '&&' ;
OROR    : '||' ;
LT      : '<' ;
GT      : '>' ;
ASSIGN  : '=' ;
PLUS    : '+' ;
MINUS   : '-' ;
STAR    : '*' ;
SLASH   : '/' ;
PERCENT : '%' ;
BANG    : '!' ;
QUESTION: '?' ;
COLON   : ':' ;
SEMI    : ';' ;
COMMA   : ',' ;
LPAREN  : '(' ;
RPAREN  : ')' ;
LBRACK  : '[' ;
RBRACK  : ']' ;
LBRACE  : '{' ;
RBRACE  : '}' ;

LINE_COMMENT : '//' ~[\r\n]* -> skip ;
WS      : [ \t\r\n\f]+ -> skip ;
// Anything else becomes one ERRCHAR token, which the frontend reports with its own message
// (so the lexer itself never fails).
ERRCHAR : . ;
